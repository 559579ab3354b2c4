import { startTestServer, withoutAnonymousAccess, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';

/**
 * SPEC section 3: an id in a path that is not one is 400 "before any other processing" — before
 * authentication too, so a server whose default client has no anonymous authenticator answers the
 * same 400 as the demo does, not a 401 that asks for a login to be told the path is wrong.
 */
describe('ids in REST paths are checked before authentication', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({
      configure: withoutAnonymousAccess,
    });
    base = server.baseUrl;
  });
  afterAll(() => server.stop());

  it.each([
    ['a leading dot', 'resources/contexts/employees/subjects/.x', 'invalid_subject_id'],
    ['a character outside the syntax', 'resources/contexts/employees/subjects/a!b', 'invalid_subject_id'],
    ['257 characters', `resources/contexts/employees/subjects/${'a'.repeat(257)}`, 'invalid_subject_id'],
    ['a NUL byte', 'resources/contexts/employees/subjects/a%00b', 'invalid_subject_id'],
    ['bad percent-encoding', 'resources/contexts/employees/subjects/a%zzb', 'invalid_request'],
    ['the alias without /resources', 'contexts/employees/subjects/a!b', 'invalid_subject_id'],
    ['a sub-resource (password)', 'resources/contexts/employees/subjects/.x/password', 'invalid_subject_id'],
    ['form 4 of the check', 'authz/employees/subjects/a!b', 'invalid_subject_id'],
    ['a context id outside the syntax', 'resources/contexts/a!b/subjects/bob', 'invalid_request'],
    ['a context id outside the syntax (collection)', 'resources/contexts/.x/subjects', 'invalid_request'],
  ])('%s → 400 with a problem document, no session made', async (_name, path, code) => {
    const sent = await send(`${base}/${path}`, { headers: { accept: 'application/json' } });
    expect(sent.status).toBe(400);
    expect(sent.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(sent.json).toMatchObject({ status: 400, code });
    expect(sent.headers.get('www-authenticate')).toBeNull();
    expect(sent.cookie).toBeUndefined();
  });

  it('a well-formed id still needs a session (401), and an unknown context stays hidden behind it', async () => {
    expect((await send(`${base}/resources/contexts/employees/subjects/bob`)).status).toBe(401);
    expect((await send(`${base}/resources/contexts/nope/subjects/bob`)).status).toBe(401);
  });
});
