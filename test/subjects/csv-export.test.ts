/**
 * SEARCH as text/csv (SPEC 3): RFC 4180, every matching subject in the search's order, for callers who
 * may SEARCH; and the export of 100,000 subjects streamed with a flat heap (the server pages through
 * the store and waits for the reader: nothing grows with the context). No time is measured.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { sessionCookie } from '../helpers/sessions';

jest.setTimeout(600_000);

let server: TestServer;
let admin: string;
let bob: string;
const subjects = () => `${server.baseUrl}/resources/contexts/employees/subjects`;
const get = (query: string, cookie: string, accept = 'text/csv') => fetch(`${subjects()}${query}`, { headers: { cookie, accept } });

beforeAll(async () => {
  server = await startTestServer();
  admin = await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' });
  bob = await sessionCookie(server, 'USER', { uniqueId: 'bob', contextId: 'employees' });
});
afterAll(() => server.stop());

describe('SEARCH as text/csv', () => {
  beforeAll(async () => {
    await server.core.subjects.create('employees', 'carol', { mail: 'carol@example.com', givenName: 'Carol, "C"', familyName: '=SUM(A1)', roles: ['user', 'auditor'] }, 'admin');
  });

  test('Accept: text/csv or format=csv: a header row of uniqueId and the readable attributes, a row per subject, CRLF, an attachment', async () => {
    const answer = await get('', admin);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="employees-subjects.csv"');
    const text = await answer.text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('uniqueId,mail,givenName,familyName,roles,disabled,userName,displayName,externalId');
    expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(['alice', 'bob', 'carol']);
    expect(lines.at(-1)).toBe('');
    // A comma and quotes are quoted, a formula is defused, a list's values are one field.
    expect(text).toContain('carol,carol@example.com,"Carol, ""C""",\'=SUM(A1),"user\nauditor",,,,\r\n');
    expect(text).not.toMatch(/password/i);
    expect(await (await get('?format=csv', admin, 'application/json')).text()).toBe(text);
  });

  test('the search, filter and order of the query apply; the whole result, not a page', async () => {
    const ids = async (query: string) => (await (await get(query, admin)).text()).split('\r\n').slice(1, -1).map((l) => l.split(',')[0]);
    expect(await ids('?sort=mail&order=desc&quantity=1')).toEqual(['carol', 'bob', 'alice']);
    expect(await ids(`?filter=${encodeURIComponent('roles eq "auditor"')}`)).toEqual(['carol']);
    expect(await ids('?search=nobody')).toEqual([]);
    const refused = await get('?sort=roles', admin);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  test('only for callers who may SEARCH; only SEARCH serves CSV; another format is 400', async () => {
    const denied = await get('', bob);
    expect(denied.status).toBe(401);
    expect(await denied.text()).not.toContain('alice@');
    expect((await fetch(`${subjects()}/bob`, { headers: { cookie: bob, accept: 'text/csv' } })).status).toBe(406);
    expect((await get('?format=xlsx', admin)).status).toBe(400);
  });
});

describe('an export of 100,000 subjects', () => {
  const COUNT = 100_000;
  beforeAll(async () => {
    const { config, store } = server.core.subjects.context('employees');
    const padding = 'x'.repeat(200);
    const at = new Date().toISOString();
    for (let start = 0; start < COUNT; start += 10_000) {
      const batch = Array.from({ length: 10_000 }, (_, i) => {
        const id = `u${String(start + i).padStart(6, '0')}`;
        return { write: server.core.subjects.toWrite(config, id, { mail: `${id}@example.com`, givenName: `${padding}${id}`, roles: ['user'] }), created: at, modified: at };
      });
      await store.importSubjects('employees', batch, { replace: false });
    }
  });

  test('streams every row while the heap stays flat (the server holds a page, not the file)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heap();
    const answer = await get('', admin);
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    let rows = 0;
    let carry = '';
    let bytes = 0;
    let next = 10_000;
    const samples: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      // A CRLF may be split between two chunks.
      const text = carry + decoder.decode(value, { stream: true });
      rows += text.split('\r\n').length - 1;
      carry = text.endsWith('\r') ? '\r' : '';
      if (rows >= next) {
        samples.push(heap());
        next += 10_000;
      }
    }
    // The header and every subject (the 100,000, and the others).
    expect(rows).toBe((await server.core.subjects.context('employees').store.count('employees')) + 1);
    expect(bytes).toBeGreaterThan(COUNT * 240);
    // The file is over 24 MB; while it streams the heap stays within a fifth of that of where it was before.
    const growth = Math.max(...samples) - before;
    expect(samples.length).toBeGreaterThanOrEqual(9);
    expect(growth).toBeLessThan(bytes / 5);
  });
});
