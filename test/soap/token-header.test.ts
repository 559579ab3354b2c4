/**
 * The `svc:Security` header with an identity-provider token (SPEC 13: the seed's artifact for this
 * kind of client), checked against the JWKS of a real oidc-provider: a level-1 session for the one
 * call, sealed for a client with a secret, refused like a token login, and nothing stored.
 */
import { startTestServer, type TestServer } from '../helpers/core-server';
import { startOidcProvider, type RunningProvider } from '../helpers/oidc-provider';
import { CONTENT_TYPE, envelope, postEnvelope, soapClient, SVC_NS, tokenHeader, VERSIONS } from './helpers';

const SEALED_SECRET = 'c29hcC1zZWFsZWQtY2xpZW50LXNlY3JldC1mb3ItdGVzdHMtMDE';
let idp: RunningProvider;
let server: TestServer;

beforeAll(async () => {
  idp = await startOidcProvider();
  const jwt = { jwksUrl: `${idp.issuer}/jwks`, issuer: idp.issuer, audience: idp.audience };
  server = await startTestServer({
    configure: (doc) => {
      (doc.authenticators as unknown[]).push({ id: 'idp-jwt', kind: 'Token', variant: 'idpSession', sessionType: 'USER', context: 'employees', options: jwt });
      (doc.clients as unknown[]).push(
        { id: 'jwt-app', authenticators: ['idp-jwt'], contexts: ['employees'] },
        { id: 'sealed-app', authenticators: ['idp-jwt'], contexts: ['employees'], secret: SEALED_SECRET },
      );
    },
  });
}, 30_000);
afterAll(async () => {
  await server.stop();
  await idp.stop();
});

const storedSessions = async () => (await server.core.sessions.list(100_000)).length;

describe.each(VERSIONS)('SOAP %s', (version) => {
  test('a valid token names the subject for the one call (level 1); sealed from a client with a secret', async () => {
    const before = await storedSessions();
    let token = await idp.mint('bob', 'jwt');
    const plain = await soapClient(server.baseUrl, version, { security: () => tokenHeader('jwt-app', token) });
    const answer = await plain.call('getSession', {});
    expect(answer.result?.session).toMatchObject({ type: 'USER', clientId: 'jwt-app', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 });
    token = await idp.mint('bob', 'jwt');
    const sealed = await soapClient(server.baseUrl, version, { security: () => tokenHeader('sealed-app', token, SEALED_SECRET) });
    expect((await sealed.call('read', { contextId: 'employees', subjectId: 'bob' })).result).toMatchObject({ subject: { uniqueId: 'bob' } });
    expect(await storedSessions()).toBe(before);
  });

  test('an unsealed token from a client with a secret, a forged or garbage token: refused as a login is', async () => {
    const good = await idp.mint('bob', 'jwt');
    const unsealed = await soapClient(server.baseUrl, version, { security: () => tokenHeader('sealed-app', good) });
    expect((await unsealed.call('getSession', {})).fault).toMatchObject({ code: 'invalid_client', status: 401 });
    const [h, p, s] = good.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'alice' })).toString('base64url')}.${s}`;
    for (const token of [forged, 'not-a-jwt']) {
      const client = await soapClient(server.baseUrl, version, { security: () => tokenHeader('jwt-app', token) });
      expect((await client.call('getSession', {})).fault).toMatchObject({ code: 'login_failed', status: 401 });
    }
  });

  test('a header-authenticated answer sets no cookie', async () => {
    const token = await idp.mint('bob', 'jwt');
    const body = `<svc:getSession xmlns:svc="${SVC_NS}"/>`;
    const answer = await postEnvelope(server.baseUrl, envelope(version, body, tokenHeader('jwt-app', token)), { 'content-type': CONTENT_TYPE[version] });
    expect({ status: answer.status, setCookie: answer.setCookie }).toEqual({ status: 200, setCookie: null });
    expect(answer.body).toContain('<level>1</level>');
  });
});
