/**
 * svc export and svc import carry a context's SCIM groups (SPEC 12, 14), so that an identity
 * provider that stored the group ids finds them after a move: groups made, filled and renamed over
 * SCIM on a real core (SQLite), exported, imported into fresh stores of every other kind
 * (PostgreSQL; an LDAP directory, whose groups are svc's groups.sqlite; SQLite), and read back over
 * SCIM from a core on each: the same ids, names, members and meta (created, lastModified, version).
 * A file without group lines (an older svc's) imports and leaves the groups alone; a group id or
 * displayName that the target has refuses the import, naming the line, unless --replace.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { runExport, runImport } from '../../server/src/subjects/transfer-command';
import { runTransfer } from '../helpers/transfer';
import { TEST_HASH, testConfigDocument, type TestServer } from '../helpers/core-server';
import { slapdRequirement, startSlapd, type Slapd } from '../helpers/ldap';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import { scimClient, startScimServer, type ScimClient } from '../scim/scim-client';

jest.setTimeout(60_000);

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const run = (command: typeof runExport, argv: string[], stdin?: string) => runTransfer(command, argv, { stdin });

const dirs: string[] = [];
const hasher = new PasswordHasher({ ...TEST_HASH, precomputeDummy: false });
/** A demo-shaped configuration file over a new data directory; `change` picks the store. */
async function configFile(change: (doc: Record<string, unknown>) => void = () => undefined): Promise<{ file: string; dataDir: string; change: typeof change }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-transfer-groups-'));
  dirs.push(dataDir);
  const doc = await testConfigDocument(dataDir, hasher);
  change(doc);
  const file = join(dataDir, 'svc.json');
  writeFileSync(file, JSON.stringify(doc));
  return { file, dataDir, change };
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface GroupSeen {
  id: string;
  displayName: string;
  members: string[];
  meta: { created: string; lastModified: string; version: string };
}

/** Every group of employees as an identity provider reads it: id, name, members, meta (without the core's address). */
async function groupsOver(scim: ScimClient): Promise<GroupSeen[]> {
  const answer = await scim.request('GET', '/Groups');
  expect(answer.status).toBe(200);
  const resources = answer.body!.Resources as Array<{ id: string; displayName: string; members?: Array<{ value: string }>; meta: GroupSeen['meta'] }>;
  return resources
    .map(({ id, displayName, members, meta }) => ({
      id,
      displayName,
      members: (members ?? []).map((m) => m.value).sort(),
      meta: { created: meta.created, lastModified: meta.lastModified, version: meta.version },
    }))
    .sort((a, b) => (a.displayName < b.displayName ? -1 : 1));
}

/** A core on `target`'s data (its store as the file says), nothing seeded: what the import wrote. */
async function groupsOnCore(target: { dataDir: string; change: (doc: Record<string, unknown>) => void }): Promise<{ groups: GroupSeen[]; core: TestServer; scim: ScimClient }> {
  const core = await startScimServer({ dataDir: target.dataDir, configure: target.change, seed: false });
  const scim = scimClient(core);
  return { groups: await groupsOver(scim), core, scim };
}

const linesOf = (text: string) => text.trimEnd().split('\n');
const groupLines = (text: string) => linesOf(text).filter((line) => line.startsWith('{"group":'));
const subjectLines = (text: string) => linesOf(text).filter((line) => !line.startsWith('{"group":'));

let source: { file: string; dataDir: string };
let before: GroupSeen[];
let exported: string;
let ids: Record<string, string>;

beforeAll(async () => {
  source = await configFile();
  const server = await startScimServer({ dataDir: source.dataDir });
  try {
    const scim = scimClient(server);
    const post = async (body: object) => {
      const made = await scim.request('POST', '/Groups', { schemas: [GROUP], ...body });
      expect(made.status).toBe(201);
      return made.body!.id as string;
    };
    await post({ displayName: 'night-shift', members: [{ value: 'bob' }] });
    // Okta pushes a group before its members: it persists empty.
    await post({ displayName: 'auditors' });
    const sales = await post({ displayName: 'sales', members: [{ value: 'alice' }, { value: 'bob' }] });
    // Entra renames a group by its id: version 2.
    expect((await scim.request('PATCH', `/Groups/${sales}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'displayName', value: 'sales-emea' }] })).status).toBe(200);
    // The roles held (user, admin, provisioner) are groups too, their ids given by this list.
    before = await groupsOver(scim);
  } finally {
    await server.stop({ keepData: true });
  }
  ids = Object.fromEntries(before.map((g) => [g.displayName, g.id]));
  exported = (await run(runExport, ['--config', source.file, '--context', 'employees'])).stdout;
});

describe('svc export', () => {
  test('writes the context’s groups after its subjects, one line each: id, displayName, timestamps, version, kept', () => {
    expect(before.map((g) => [g.displayName, g.members])).toEqual([
      ['admin', ['alice']],
      ['auditors', []],
      ['night-shift', ['bob']],
      ['provisioner', ['scim-employees']],
      ['sales-emea', ['alice', 'bob']],
      ['user', ['bob']],
    ]);
    const lines = linesOf(exported).map((line) => JSON.parse(line));
    expect(lines.map((line) => line.uniqueId ?? line.group.displayName)).toEqual(['alice', 'bob', 'scim-employees', 'admin', 'auditors', 'night-shift', 'provisioner', 'sales-emea', 'user']);
    const sales = lines.find((line) => line.group?.displayName === 'sales-emea');
    const seen = before.find((g) => g.displayName === 'sales-emea')!;
    expect(sales).toEqual({ group: { id: seen.id, displayName: 'sales-emea', created: seen.meta.created, modified: seen.meta.lastModified, version: 2, kept: true } });
    expect(seen.meta.version).toBe('W/"2"');
    // A role only seen held is no SCIM write: carried with its id, not kept.
    expect(lines.find((line) => line.group?.displayName === 'user').group).toMatchObject({ id: ids.user, version: 1, kept: false });
    // Members are the subjects holding the role: in the subjects' lines, not twice.
    expect(lines.find((line) => line.uniqueId === 'bob').attributes.roles).toEqual(['user', 'night-shift', 'sales-emea']);
  });
});

describe('svc import into SQLite', () => {
  test('the same ids, names, members and meta over SCIM; exported again, the same bytes', async () => {
    const target = await configFile();
    expect(await run(runImport, ['--config', target.file, '--context', 'employees'], exported)).toEqual({ code: 0, stdout: '', stderr: 'svc import: 3 subjects and 6 SCIM groups written to employees\n' });
    const { groups, core } = await groupsOnCore(target);
    await core.stop({ keepData: true });
    expect(groups).toEqual(before);
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe(exported);
  });

  test('a file without group lines (an older svc’s) imports as before and leaves the groups alone', async () => {
    const target = await configFile();
    const older = subjectLines(exported).join('\n') + '\n';
    expect(await run(runImport, ['--config', target.file, '--context', 'employees'], older)).toEqual({ code: 0, stdout: '', stderr: 'svc import: 3 subjects written to employees\n' });
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe(older);
    // Groups already there stay when such a file is imported again.
    expect((await run(runImport, ['--config', target.file, '--context', 'employees'], groupLines(exported).join('\n'))).code).toBe(0);
    expect((await run(runImport, ['--config', target.file, '--context', 'employees', '--replace'], older)).code).toBe(0);
    expect(groupLines((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout)).toEqual(groupLines(exported));
  });

  test('a group id, or a displayName in any case, that the target has refuses the whole import naming the line, unless --replace', async () => {
    const target = await configFile();
    const groups = groupLines(exported);
    const nightLine = groups.findIndex((line) => line.includes('"night-shift"')) + 1;
    // Another group of the same name, in another case, under an id of its own (a core that saw the role first).
    const other = JSON.stringify({ group: { id: 'other-id', displayName: 'NIGHT-SHIFT', created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z', version: 5, kept: false } });
    expect((await run(runImport, ['--config', target.file, '--context', 'employees'], other)).code).toBe(0);
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], groups.join('\n'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`svc import: import refused, nothing written:\n  line ${nightLine}: group ${ids['night-shift']}: the displayName night-shift is another group's (other-id) (--replace replaces it)\n`);
    expect(groupLines((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).map((line) => JSON.parse(line).group.id)).toEqual(['other-id']);
    expect((await run(runImport, ['--config', target.file, '--context', 'employees', '--replace'], groups.join('\n'))).code).toBe(0);
    // The file's group took the name; the other id is gone.
    expect(groupLines((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout)).toEqual(groups);
    // Its own id again: refused, then replaced, its version above the one it had (an ETag read before does not match).
    const again = await run(runImport, ['--config', target.file, '--context', 'employees'], groups.join('\n'));
    expect(again.stderr).toContain(`line 1: group ${ids.admin} exists (--replace replaces it)`);
    expect((await run(runImport, ['--config', target.file, '--context', 'employees', '--replace'], groups.join('\n'))).code).toBe(0);
    const versions = groupLines((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).map((line) => [JSON.parse(line).group.displayName, JSON.parse(line).group.version]);
    expect(versions).toEqual([['admin', 2], ['auditors', 2], ['night-shift', 2], ['provisioner', 2], ['sales-emea', 3], ['user', 2]]);
  });

  test('invalid group lines refuse the whole import, each named by its line, and nothing is written', async () => {
    const target = await configFile();
    const [first] = groupLines(exported).map((line) => JSON.parse(line).group);
    const line = (group: object, more: object = {}) => JSON.stringify({ group: { ...first, ...group }, ...more });
    const lines = [
      ...subjectLines(exported),
      line({}),
      line({ id: 'id2' }, { uniqueId: 'x' }),
      line({ id: 'a/b', displayName: 'slash' }),
      line({ id: 'id4', displayName: ' ' }),
      line({ id: 'id5', displayName: 'v', version: 0 }),
      line({ id: 'id6', displayName: 'k', kept: 'yes' }),
      line({ id: 'id7', displayName: 'm', members: [{ value: 'bob' }] }),
      line({ displayName: 'again' }),
      line({ id: 'id9', displayName: 'ADMIN' }),
      line({ id: 'id10', displayName: 'd', created: 'yesterday' }),
      JSON.stringify({ group: 'sales' }),
    ];
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], lines.join('\n'));
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('  line '))).toEqual([
      '  line 5: a group line holds "group" alone; unknown members: uniqueId',
      '  line 6: group.id must be 1 to 128 letters, digits, ".", "_", "~" or "-"',
      '  line 7: group.displayName is 1 to 256 characters',
      '  line 8: group.version must be a positive integer',
      '  line 9: group.kept must be true or false',
      '  line 10: unknown members of group: members',
      `  line 11: group ${first.id} is already on line 4`,
      '  line 12: the group displayName ADMIN is already on line 4',
      '  line 13: group.created is not an ISO 8601 timestamp',
      '  line 14: group must be an object',
    ]);
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe('');
  });
});

describeWithService(postgresRequirement(), 'svc import into PostgreSQL', () => {
  const schemas = suiteSchemas('transfergroups');

  test('the same ids, names, members and meta over SCIM from a core on it; an ETag read before the move still matches', async () => {
    const target = await configFile(onPostgres((await schemas.create()).url));
    expect(await run(runImport, ['--config', target.file, '--context', 'employees'], exported)).toEqual({ code: 0, stdout: '', stderr: 'svc import: 3 subjects and 6 SCIM groups written to employees\n' });
    const { groups, core, scim } = await groupsOnCore(target);
    try {
      expect(groups).toEqual(before);
      // Entra's next PATCH, with the ETag it read before the move.
      const patched = await scim.request('PATCH', `/Groups/${ids.auditors}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: 'alice' }] }] }, { 'if-match': 'W/"1"' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: ids.auditors, members: [{ value: 'alice' }] });
    } finally {
      await core.stop({ keepData: true });
    }
    expect(groupLines((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).map((line) => JSON.parse(line).group.id)).toEqual(groupLines(exported).map((line) => JSON.parse(line).group.id));
  });

  test('a refused import writes neither subjects nor groups', async () => {
    const target = await configFile(onPostgres((await schemas.create()).url));
    // The last subject line takes a mail another line has: the transaction writes nothing.
    const lines = linesOf(exported).map((line) => JSON.parse(line));
    const clash = lines.map((line) => (line.uniqueId === 'scim-employees' ? { ...line, attributes: { ...line.attributes, mail: lines[0].attributes.mail } } : line));
    const refused = await run(runImport, ['--config', target.file, '--context', 'employees'], clash.map((line) => JSON.stringify(line)).join('\n'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('line 3: subject scim-employees: a unique value is already taken');
    expect((await run(runExport, ['--config', target.file, '--context', 'employees'])).stdout).toBe('');
  });
});

describeWithService(slapdRequirement(), 'svc import into an LDAP directory (its groups in groups.sqlite)', () => {
  let slapd: Slapd;
  beforeAll(() => {
    slapd = startSlapd({ contexts: ['employees', 'customers'] });
  });
  afterAll(() => slapd?.stop());

  test('the same ids, names, members and meta over SCIM from a core on it; exported again, the same group lines', async () => {
    const onLdap = (doc: Record<string, unknown>) => {
      for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
      doc.stores = { ldap: slapd.settings() };
    };
    const target = await configFile(onLdap);
    const imported = await run(runImport, ['--config', target.file, '--context', 'employees'], exported);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('svc import: 3 subjects and 6 SCIM groups written to employees\n');
    const { groups, core } = await groupsOnCore(target);
    await core.stop({ keepData: true });
    expect(groups).toEqual(before);
    const again = await run(runExport, ['--config', target.file, '--context', 'employees']);
    expect(again.code).toBe(0);
    expect(groupLines(again.stdout)).toEqual(groupLines(exported));
  });

  test('an export of a data directory without groups.sqlite makes none', async () => {
    await slapd.clear(['employees', 'customers']);
    const target = await configFile((doc) => {
      for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
      doc.stores = { ldap: slapd.settings() };
    });
    expect(await run(runExport, ['--config', target.file, '--context', 'customers'])).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(join(target.dataDir, 'groups.sqlite'))).toBe(false);
  });
});
