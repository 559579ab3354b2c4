/**
 * The clientcred and principal-assertion codecs: what the client seals opens, and every change to
 * it (a character, a cut, an addition, another request's method or path) is refused with the codec's
 * own rejection, never another error, never accepted.
 */
import fc from 'fast-check';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { PrincipalAssertionRejected, signPrincipalAssertion, verifyPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { ClientCredential, ClientCredentialRejected } from '../../server/src/clientcred/client-credential';
import { deriveClientKeys } from '../../server/src/clientcred/client-key';
import { runs } from './runs';

const CLIENT = 'svc-api';
const SECRET = 'c3ZjLWFwaS10ZXN0LXNlY3JldC1mb3ItZnV6emluZy1vbmx5LTAx';
const PORTAL = 'demo-portal';
const PORTAL_SECRET = 'ZGVtby1wb3J0YWwtZnV6ei1zZWNyZXQtZm9yLXRlc3RzLW9ubHk';
const sealer = new ClientSealer(CLIENT, SECRET);
const keys = deriveClientKeys([SECRET], CLIENT);
const NOW = 1_800_000_000;

/** One edit of a text: replace, cut or insert at a position (the shrinker keeps them small). */
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), with: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), with: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('standard-base64' as const) }),
);
type Edit = { kind: 'replace' | 'insert'; at: number; with: string } | { kind: 'cut'; at: number; length: number } | { kind: 'standard-base64' };

function apply(text: string, e: Edit): string {
  if (e.kind === 'standard-base64') return text.replace(/-/g, '+').replace(/_/g, '/') + '=';
  const at = e.at % (text.length + 1);
  if (e.kind === 'cut') return text.slice(0, at) + text.slice(at + e.length);
  return text.slice(0, at) + e.with + text.slice(e.kind === 'replace' ? at + e.with.length : at);
}

test(`a sealed clientcred opens, and any change to it is a ClientCredentialRejected (${runs(300)} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(edit, async (e) => {
      const { clientcred } = sealer.sealClientCred({ now: NOW });
      const changed = apply(clientcred, e);
      const nonces = new MemoryNonceStore();
      const attempt = ClientCredential.open({ clientId: CLIENT, keys, clientcred: changed, now: NOW, nonces });
      if (changed === clientcred) await expect(attempt).resolves.toBeInstanceOf(ClientCredential);
      else await expect(attempt).rejects.toBeInstanceOf(ClientCredentialRejected);
      const again = await ClientCredential.open({ clientId: CLIENT, keys, clientcred, now: NOW, nonces }).catch((error: unknown) => error);
      // The original is refused only when it is the value just accepted (a replay).
      expect(again instanceof ClientCredentialRejected ? again.reason : 'opened').toBe(changed === clientcred ? 'replayed' : 'opened');
    }),
    { numRuns: runs(300) },
  );
});

test(`a sealed parameter opens only for its own name and request (${runs(200)} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 40 }), edit, fc.boolean(), async (password, e, otherName) => {
      const { clientcred, nonce } = sealer.sealClientCred({ now: NOW });
      const credential = await ClientCredential.open({ clientId: CLIENT, keys, clientcred, now: NOW, nonces: new MemoryNonceStore() });
      let sealed: string;
      try {
        sealed = sealer.sealParam('password', password, nonce);
      } catch (error) {
        // A lone surrogate has no UTF-8 form: the sealer refuses it as the caller's mistake.
        expect(error).toBeInstanceOf(TypeError);
        return;
      }
      expect(credential.openParam('password', sealed)).toBe(password);
      const changed = apply(sealed, e);
      if (changed !== sealed) expect(() => credential.openParam('password', changed)).toThrow(ClientCredentialRejected);
      if (otherName) expect(() => credential.openParam('user', sealed)).toThrow(ClientCredentialRejected);
    }),
    { numRuns: runs(200) },
  );
});

test(`a principal assertion verifies, and any change to it or to the request is a PrincipalAssertionRejected (${runs(300)} runs)`, async () => {
  const path = fc.string({ unit: fc.constantFrom('a', '/', '?', '=', '%', '.', 'é'), maxLength: 12 }).map((p) => `/gw/api/${p}`);
  await fc.assert(
    fc.asyncProperty(edit, path, fc.constantFrom('GET', 'POST', 'DELETE'), fc.constantFrom('header', 'method', 'path'), async (e, pathAndQuery, method, what) => {
      const header = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: { contextId: 'employees', uniqueId: 'bob' }, visitor: 'v', address: '203.0.113.9', method, pathAndQuery, now: NOW });
      const sent = what === 'header' ? apply(header, e) : header;
      const sentMethod = what === 'method' ? (method === 'GET' ? 'POST' : 'GET') : method;
      const sentPath = what === 'path' ? apply(pathAndQuery, e) : pathAndQuery;
      const attempt = verifyPrincipalAssertion(sent, { method: sentMethod, pathAndQuery: sentPath, now: NOW, portals: (id) => (id === PORTAL ? [PORTAL_SECRET] : undefined), nonces: new MemoryNonceStore() });
      if (sent === header && sentMethod === method && sentPath === pathAndQuery) await expect(attempt).resolves.toMatchObject({ portalId: PORTAL, user: { uniqueId: 'bob' } });
      else await expect(attempt).rejects.toBeInstanceOf(PrincipalAssertionRejected);
    }),
    { numRuns: runs(300) },
  );
});
