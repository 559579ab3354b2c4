import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescriptorError, buildDescriptor, loadPortletApplication } from '../../portlet-adapter/src/container';
import { COUNTER, fixture } from './harness';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof DescriptorError) return error.problems;
    throw error;
  }
  throw new Error('no DescriptorError');
}

describe('portlet.json', () => {
  test('defaults: VIEW always supported, no preferences, no cache', () => {
    const descriptor = buildDescriptor({ portlets: [{ name: 'p', module: './p.js', title: 'P' }] });
    expect(descriptor).toEqual({
      application: 'svc',
      initParams: {},
      portlets: [{ name: 'p', module: './p.js', title: 'P', initParams: {}, supports: [{ mimeType: 'text/html', modes: ['view'] }], preferences: [], securityRoleRefs: [], userAttributes: [], expirationCache: 0 }],
    });
    expect(Object.isFrozen(descriptor.portlets[0])).toBe(true);
  });

  test('every schema error is reported by path', () => {
    expect(
      problemsOf(() =>
        buildDescriptor({
          portlets: [
            { name: '1bad', module: '', title: 'T', supports: [{ mimeType: 'text/html', modes: ['view', 'config'] }], expirationCache: -2, colour: 'x' },
            { name: 'ok', module: './m.js', title: 'T', userAttributes: ['user.name.given', 'user.password'], preferences: [{ values: [1] }] },
          ],
        }),
      ).sort(),
    ).toEqual([
      'portlets[0].expirationCache: must be >= -1',
      'portlets[0].module: must NOT have fewer than 1 characters',
      'portlets[0].name: must match pattern "^[A-Za-z][A-Za-z0-9_-]{0,63}$"',
      'portlets[0].supports[0].modes[1]: must be one of ["view","edit","help","VIEW","EDIT","HELP"]',
      'portlets[0]: unknown property "colour"',
      'portlets[1].preferences[0].values[0]: must be string,null',
      'portlets[1].preferences[0]: missing property "name"',
      expect.stringMatching(/^portlets\[1\]\.userAttributes\[1\]: not one of the \d+ names the schema allows$/),
    ]);
  });

  test('what the schema cannot say: duplicate names, no text/html', () => {
    expect(
      problemsOf(() =>
        buildDescriptor({
          portlets: [
            { name: 'a', module: './a.js', title: 'A', preferences: [{ name: 'x' }, { name: 'x' }] },
            { name: 'a', module: './a.js', title: 'A', supports: [{ mimeType: 'text/plain' }] },
          ],
        }),
      ),
    ).toEqual(['portlets[0].preferences[1].name: preference "x" is defined twice', 'portlets[1].name: portlet "a" is defined twice', 'portlets[1].supports: the portal aggregates text/html only; declare it']);
  });

  test('classes that do not load are reported by path; a file that is not JSON is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-descriptor-'));
    try {
      const path = join(dir, 'portlet.json');
      writeFileSync(path, JSON.stringify({ portlets: [COUNTER, { name: 'x', module: './missing.js', title: 'X', preferencesValidator: `${fixture('counter.ts', 'NoSuchValidator')}` }] }));
      const error = await loadPortletApplication(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DescriptorError);
      expect((error as DescriptorError).problems).toEqual([
        expect.stringMatching(/^portlets\[1\]\.module: cannot load \.\/missing\.js: /),
        expect.stringMatching(/^portlets\[1\]\.preferencesValidator: .*counter\.ts has no class export "NoSuchValidator"$/),
      ]);
      writeFileSync(path, '{"portlets": [');
      expect(((await loadPortletApplication(path).catch((e: unknown) => e)) as DescriptorError).problems[0]).toMatch(/^\(file\): .*portlet\.json is not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
