import { ClientSealer } from '../../client/src/clientcred/sealer';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { send, sessionOf } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';
import { startOidcProvider, type RunningProvider } from '../helpers/oidc-provider';

const SEALED_SECRET = 'aWRwLXNlYWxlZC1jbGllbnQtc2VjcmV0LWZvci10ZXN0cy0wMQ';
let clock = Date.now();

/** Runs `action` with our clock just past a token minted now with a 60 s lifetime. */
async function pastExpiry(action: () => Promise<void>): Promise<void> {
  const saved = clock;
  clock = Date.now() + 61_000;
  try {
    await action();
  } finally {
    clock = saved;
  }
}
let idp: RunningProvider;
let server: TestServer;
let base: string;

/** A Token authenticator of the employees context. */
const token = (id: string, variant: string, options: Record<string, unknown>) => ({ id, kind: 'Token', variant, sessionType: 'USER', context: 'employees', options });
const client = (id: string, authenticators: string[], extra: Record<string, unknown> = {}) => ({ id, authenticators, contexts: ['employees'], ...extra });

beforeAll(async () => {
  idp = await startOidcProvider();
  const jwt = { jwksUrl: `${idp.issuer}/jwks`, issuer: idp.issuer, audience: idp.audience };
  server = await startTestServer({
    now: () => clock,
    configure: (doc) => {
      (doc.authenticators as unknown[]).push(
        token('idp-jwt', 'idpSession', jwt),
        token('idp-jwt-other-audience', 'idpSession', { ...jwt, audience: 'urn:someone-else' }),
        token('idp-jwt-other-issuer', 'idpSession', { ...jwt, issuer: 'https://other.example' }),
        token('idp-introspect', 'idpSession', { introspectionUrl: `${idp.issuer}/token/introspection`, clientId: 'svc-introspector', clientSecret: idp.introspectorSecret, issuer: idp.issuer }),
        token('header-trusted', 'httpHeader', { trustedPeers: ['127.0.0.1/32', '::1/128'] }),
        token('header-untrusted', 'httpHeader', { trustedPeers: ['10.0.0.0/8'] }),
      );
      (doc.clients as unknown[]).push(
        client('jwt-app', ['idp-jwt']),
        client('jwt-other-audience', ['idp-jwt-other-audience']),
        client('jwt-other-issuer', ['idp-jwt-other-issuer']),
        client('introspect-app', ['idp-introspect']),
        client('sealed-app', ['idp-jwt'], { secret: SEALED_SECRET }),
        client('agent', ['header-trusted', 'anonymous']),
        client('spoofable', ['header-untrusted', 'anonymous']),
      );
    },
  });
  base = server.baseUrl;
}, 30_000);
afterAll(async () => {
  await server.stop();
  await idp.stop();
});

const expectFailed = (sent: Awaited<ReturnType<typeof login>>) => {
  expect(sent.status).toBe(401);
  expect(sent.json?.code).toBe('login_failed');
};

describe('identity-provider token, JWT checked against the JWKS of a real oidc-provider', () => {
  it('a valid token names the subject (level 1)', async () => {
    const sent = await login(base, { clientid: 'jwt-app', token: await idp.mint('bob', 'jwt') });
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'jwt-app', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 });
  });

  it('the principal is matched like a login name (mail, any case)', async () => {
    const sent = await login(base, { clientid: 'jwt-app', token: await idp.mint('Alice@Example.com', 'jwt') });
    expect(sessionOf(sent)).toMatchObject({ principal: { uniqueId: 'alice' } });
  });

  it('a tampered signature, a truncated token or garbage fails', async () => {
    const good = await idp.mint('bob', 'jwt');
    const [h, p, s] = good.split('.');
    const other = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...other, sub: 'alice' })).toString('base64url')}.${s}`;
    expectFailed(await login(base, { clientid: 'jwt-app', token: forged }));
    expectFailed(await login(base, { clientid: 'jwt-app', token: good.slice(0, -10) }));
    expectFailed(await login(base, { clientid: 'jwt-app', token: 'not-a-jwt' }));
  });

  it('a wrong audience or issuer fails', async () => {
    expectFailed(await login(base, { clientid: 'jwt-other-audience', token: await idp.mint('bob', 'jwt') }));
    expectFailed(await login(base, { clientid: 'jwt-other-issuer', token: await idp.mint('bob', 'jwt') }));
  });

  it('an expired token fails (our clock moved past exp, no sleeping)', async () => {
    const jwt = await idp.mint('bob', 'jwt', 60);
    await pastExpiry(async () => expectFailed(await login(base, { clientid: 'jwt-app', token: jwt })));
  });

  it('a token for an unknown or disabled subject fails', async () => {
    await server.core.subjects.create('employees', 'frank', { mail: 'frank@example.com', disabled: 'true' }, 'admin');
    expectFailed(await login(base, { clientid: 'jwt-app', token: await idp.mint('nobody', 'jwt') }));
    expectFailed(await login(base, { clientid: 'jwt-app', token: await idp.mint('frank', 'jwt') }));
  });

  it('from a client with a secret the token must be sealed', async () => {
    const sealer = new ClientSealer('sealed-app', SEALED_SECRET);
    const jwt = await idp.mint('bob', 'jwt');
    expect(sessionOf(await login(base, sealedParams(sealer, { token: jwt })))).toMatchObject({ principal: { uniqueId: 'bob' } });
    const unsealed = await login(base, { ...sealedParams(sealer, {}), token: jwt });
    expect(unsealed.json?.code).toBe('invalid_client');
  });
});

describe('identity-provider token, RFC 7662 introspection at a real oidc-provider', () => {
  it('an active opaque token names the subject', async () => {
    const sent = await login(base, { clientid: 'introspect-app', token: await idp.mint('bob', 'opaque') });
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob' }, level: 1 });
  });

  it('an unknown token is inactive and fails', async () => {
    expectFailed(await login(base, { clientid: 'introspect-app', token: 'MG2PbwY82shGV_nK3VuYX-zRM5yDTaO64URrqUq1NcX' }));
  });

  it('a token whose exp our clock has passed fails', async () => {
    const opaque = await idp.mint('bob', 'opaque', 60);
    await pastExpiry(async () => expectFailed(await login(base, { clientid: 'introspect-app', token: opaque })));
  });
});

describe('HTTP header token (svcid)', () => {
  it('from a trusted peer the header names the subject (level 1)', async () => {
    const sent = await login(base, { clientid: 'agent' }, { headers: { svcid: 'bob' } });
    expect(sessionOf(sent)).toMatchObject({ type: 'USER', clientId: 'agent', principal: { uniqueId: 'bob' }, level: 1 });
  });

  it('a header naming nobody falls through to Anonymous', async () => {
    const sent = await login(base, { clientid: 'agent' }, { headers: { svcid: 'nobody' } });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', principal: null });
  });

  it('a spoofed svcid from an untrusted peer is ignored and audited', async () => {
    const sent = await login(base, { clientid: 'spoofable' }, { headers: { svcid: 'alice' } });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', principal: null });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/svc_audit_events_total\{event="header_token_ignored",outcome="failure",reason="untrusted_peer"\} 1/);
  });

  it('the demo (no header authenticator) gives a request with svcid its anonymous session', async () => {
    const sent = await send(`${base}/resources/session`, { headers: { svcid: 'alice' } });
    expect(sessionOf(sent)).toMatchObject({ type: 'ANON', principal: null });
  });
});

describe('identity-provider token in a configured cookie', () => {
  let cookieServer: TestServer;
  beforeAll(async () => {
    const jwt = { jwksUrl: `${idp.issuer}/jwks`, issuer: idp.issuer, audience: idp.audience, cookie: 'IDPSESSION' };
    cookieServer = await startTestServer({
      now: () => clock,
      configure: (doc) => {
        (doc.authenticators as unknown[]).push(token('idp-cookie', 'idpSession', jwt));
        const clients = doc.clients as Array<{ id: string; authenticators: string[] }>;
        clients.find((c) => c.id === 'anon')!.authenticators = ['idp-cookie', 'anonymous'];
      },
    });
  });
  afterAll(() => cookieServer.stop());

  it('a request without a session but with the cookie gets a USER session through the default client', async () => {
    const jwt = await idp.mint('bob', 'jwt');
    const sent = await send(`${cookieServer.baseUrl}/resources/session`, { headers: { cookie: `IDPSESSION=${jwt}`, accept: 'application/json' } });
    expect(sent.json?.session).toMatchObject({ type: 'USER', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 1 });
    expect(sent.cookie).toBeDefined();
  });

  it('without the cookie the visitor is anonymous; with a forged one nobody is authenticated', async () => {
    expect((await send(`${cookieServer.baseUrl}/resources/session`)).json?.session).toMatchObject({ type: 'ANON' });
    const forged = await send(`${cookieServer.baseUrl}/resources/session`, { headers: { cookie: 'IDPSESSION=not.a.token', accept: 'application/json' } });
    expect(forged.status).toBe(401);
    expect(forged.json?.code).toBe('authentication_required');
  });
});
