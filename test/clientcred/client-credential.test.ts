/**
 * The server's opener against everything a hostile or broken client can send: forgeries, truncation,
 * other clients' credentials, old and replayed ones, and sealed values moved between parameters.
 */
import { createCipheriv } from 'node:crypto';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { deriveClientKey } from '../../server/src/clientcred/client-key';
import { ClientCredential, ClientCredentialRejected, type OpenClientCredentialInput } from '../../server/src/clientcred/client-credential';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { InvalidClient, ServiceUnavailable } from '../../common/src/errors';
import { clientcredAad, formatSealed } from '../../common/src/clientcred/format';

const CLIENT_ID = 'svc-api';
const SECRET = 'dGVzdC1zZWNyZXQtZm9yLXRoZS1jbGllbnRjcmVkLXN1aXRl';
const OLD_SECRET = 'b2xkLXNlY3JldC1mb3ItdGhlLWNsaWVudGNyZWQtc3VpdGU';
const NOW = 1_800_000_000;

const sealer = new ClientSealer(CLIENT_ID, SECRET);
const key = deriveClientKey(SECRET, CLIENT_ID);

function open(clientcred: unknown, overrides: Partial<OpenClientCredentialInput> = {}): Promise<ClientCredential> {
  return ClientCredential.open({ clientId: CLIENT_ID, keys: [key], clientcred, now: NOW, nonces: new MemoryNonceStore(), ...overrides });
}

/** Expects a refusal with this audit reason, and checks that the client is told nothing more. */
async function expectRejected(attempt: Promise<unknown>, reason: string): Promise<void> {
  const error = await attempt.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ClientCredentialRejected);
  expect(error).toBeInstanceOf(InvalidClient);
  expect(error).toMatchObject({ reason, status: 401, code: 'invalid_client', message: 'The client could not be validated.' });
}

/** Seals any plaintext with node:crypto, to build credentials the real sealer refuses to make. */
function sealRaw(plaintext: Buffer | string): string {
  const iv = Buffer.alloc(12, 7);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(clientcredAad(CLIENT_ID), 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(plaintext)), cipher.final()]);
  return formatSealed({ iv, ciphertext, tag: cipher.getAuthTag() });
}

/** Flips one bit of the decoded payload at `offset` (negative counts from the end). */
function flipBit(sealed: string, offset: number): string {
  const bytes = Buffer.from(sealed.slice(3), 'base64url');
  bytes[offset < 0 ? bytes.length + offset : offset] ^= 0x01;
  return `v1.${bytes.toString('base64url')}`;
}

const fresh = () => sealer.sealClientCred({ now: NOW });

describe('ClientCredential.open', () => {
  it('opens a fresh clientcred and its parameters', async () => {
    const { clientcred, nonce } = fresh();
    const credential = await open(clientcred);
    expect(credential).toMatchObject({ clientId: CLIENT_ID, nonce, issuedAt: NOW });
    expect(credential.openParam('user', sealer.sealParam('user', 'alice', nonce))).toBe('alice');
    expect(credential.openParam('token', sealer.sealParam('token', 'eyJ.x.y', nonce))).toBe('eyJ.x.y');
  });

  it.each([['IV', 0], ['ciphertext', 20], ['tag', -1]])('refuses a flipped bit in the %s', async (_part, offset) => {
    await expectRejected(open(flipBit(fresh().clientcred, offset)), 'tag_mismatch');
  });

  it('refuses truncated values', async () => {
    const bytes = Buffer.from(fresh().clientcred.slice(3), 'base64url');
    await expectRejected(open(`v1.${bytes.subarray(0, bytes.length - 1).toString('base64url')}`), 'tag_mismatch');
    await expectRejected(open(`v1.${bytes.subarray(0, 27).toString('base64url')}`), 'malformed');
    await expectRejected(open('v1.'), 'malformed');
  });

  it.each([
    ['a wrong prefix', (sealed: string) => `v2.${sealed.slice(3)}`],
    ['no prefix', (sealed: string) => sealed.slice(3)],
    ['padding', (sealed: string) => `${sealed}==`],
    ['standard base64', (sealed: string) => `v1.${Buffer.from(sealed.slice(3), 'base64url').toString('base64')}`],
    ['a space', (sealed: string) => `${sealed} `],
    ['an array', (sealed: string) => [sealed]],
    ['nothing', () => undefined],
  ])('refuses %s as malformed', async (_what, mangle: (sealed: string) => unknown) => {
    await expectRejected(open(mangle(fresh().clientcred)), 'malformed');
  });

  it('refuses another client: its key does not open, its cid does not match', async () => {
    const other = new ClientSealer('other-client', SECRET).sealClientCred({ now: NOW });
    await expectRejected(open(other.clientcred), 'tag_mismatch');
    const otherCid = sealRaw('{"cid":"other-client","ts":1800000000,"nonce":"AAECAwQFBgcICQoLDA0ODw"}');
    await expectRejected(open(otherCid), 'client_mismatch');
  });

  it.each([
    ['an extra key', '{"cid":"svc-api","ts":1800000000,"nonce":"AAECAwQFBgcICQoLDA0ODw","x":1}'],
    ['a missing key', '{"cid":"svc-api","ts":1800000000}'],
    ['a fractional ts', '{"cid":"svc-api","ts":1800000000.5,"nonce":"AAECAwQFBgcICQoLDA0ODw"}'],
    ['a string ts', '{"cid":"svc-api","ts":"1800000000","nonce":"AAECAwQFBgcICQoLDA0ODw"}'],
    ['a short nonce', '{"cid":"svc-api","ts":1800000000,"nonce":"AAECAwQFBgcICQoLDA0O"}'],
    ['a non-canonical nonce', '{"cid":"svc-api","ts":1800000000,"nonce":"AAECAwQFBgcICQoLDA0ODx"}'],
    ['an array', '["svc-api",1800000000,"AAECAwQFBgcICQoLDA0ODw"]'],
    ['not JSON', 'cid=svc-api'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ])('refuses a plaintext with %s as malformed', async (_what, plaintext) => {
    await expectRejected(open(sealRaw(plaintext)), 'malformed');
  });

  it('accepts the edges of the 300 s window and refuses one second beyond', async () => {
    await expect(open(fresh().clientcred, { now: NOW + 300 })).resolves.toBeInstanceOf(ClientCredential);
    await expect(open(fresh().clientcred, { now: NOW - 300 })).resolves.toBeInstanceOf(ClientCredential);
    await expectRejected(open(fresh().clientcred, { now: NOW + 301 }), 'stale');
    await expectRejected(open(fresh().clientcred, { now: NOW - 301 }), 'stale');
  });

  it('refuses a replay, and remembers only credentials that passed every other check', async () => {
    const nonces = new MemoryNonceStore();
    const { clientcred } = fresh();
    await expectRejected(open(clientcred, { nonces, now: NOW + 301 }), 'stale');
    await expectRejected(open(flipBit(clientcred, 20), { nonces }), 'tag_mismatch');
    expect(nonces.size).toBe(0);
    await open(clientcred, { nonces });
    await expectRejected(open(clientcred, { nonces }), 'replayed');
  });

  it('keeps the nonce 900 s under a namespaced key', async () => {
    const calls: Array<[string, number]> = [];
    const { clientcred, nonce } = fresh();
    await open(clientcred, { nonces: { rememberOnce: async (nonceKey, ttl) => (calls.push([nonceKey, ttl]), true) } });
    expect(calls).toEqual([[`clientcred|${CLIENT_ID}|${nonce}`, 900]]);
  });

  it('lets a full nonce store answer 503 instead of accepting', async () => {
    const nonces = new MemoryNonceStore({ maxEntries: 1 });
    await open(fresh().clientcred, { nonces });
    await expect(open(fresh().clientcred, { nonces })).rejects.toBeInstanceOf(ServiceUnavailable);
  });

  it('opens with either secret during a rotation, and with no other', async () => {
    const keys = [key, deriveClientKey(OLD_SECRET, CLIENT_ID)];
    const oldSealer = new ClientSealer(CLIENT_ID, OLD_SECRET);
    const { clientcred, nonce } = oldSealer.sealClientCred({ now: NOW });
    const credential = await open(clientcred, { keys });
    expect(credential.openParam('password', oldSealer.sealParam('password', 'pw', nonce))).toBe('pw');
    await expect(open(fresh().clientcred, { keys })).resolves.toBeInstanceOf(ClientCredential);
    await expectRejected(open(clientcred, { keys: [key] }), 'tag_mismatch');
  });

  it('refuses a sealed value moved to another parameter or another request', async () => {
    const { clientcred, nonce } = fresh();
    const credential = await open(clientcred);
    const user = sealer.sealParam('user', 'alice', nonce);
    expect(() => credential.openParam('password', user)).toThrow(expect.objectContaining({ reason: 'param_invalid', param: 'password' }));
    expect(() => credential.openParam('token', user)).toThrow(ClientCredentialRejected);
    const otherRequest = await open(fresh().clientcred);
    expect(() => otherRequest.openParam('user', user)).toThrow(expect.objectContaining({ reason: 'param_invalid' }));
    expect(() => credential.openParam('user', 'alice')).toThrow(expect.objectContaining({ reason: 'param_invalid' }));
  });
});

describe('MemoryNonceStore', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('says true once, then false until the entry expires; bad arguments are caller mistakes', async () => {
    const store = new MemoryNonceStore({ clock });
    await expect(store.rememberOnce('a', 10)).resolves.toBe(true);
    await expect(store.rememberOnce('a', 10)).resolves.toBe(false);
    now += 9_999;
    await expect(store.rememberOnce('a', 10)).resolves.toBe(false);
    now += 1;
    await expect(store.rememberOnce('a', 10)).resolves.toBe(true);
    await expect(store.rememberOnce('', 10)).rejects.toBeInstanceOf(TypeError);
    await expect(store.rememberOnce('a', 0)).rejects.toBeInstanceOf(TypeError);
    expect(() => new MemoryNonceStore({ maxEntries: 0 })).toThrow(TypeError);
  });

  it('refuses new keys when full rather than forgetting unexpired ones', async () => {
    const store = new MemoryNonceStore({ clock, maxEntries: 2 });
    await store.rememberOnce('a', 10);
    await store.rememberOnce('b', 20);
    await expect(store.rememberOnce('c', 10)).rejects.toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '10' } });
    await expect(store.rememberOnce('a', 10)).resolves.toBe(false);
    await expect(store.rememberOnce('b', 10)).resolves.toBe(false);
    expect(store.size).toBe(2);
  });

  it('sweeps expired entries to make room when full', async () => {
    const store = new MemoryNonceStore({ clock, maxEntries: 2 });
    await store.rememberOnce('a', 10);
    await store.rememberOnce('b', 20);
    now += 10_000;
    await expect(store.rememberOnce('c', 10)).resolves.toBe(true);
    await expect(store.rememberOnce('b', 10)).resolves.toBe(false);
    await expect(store.rememberOnce('d', 10)).rejects.toBeInstanceOf(ServiceUnavailable);
  });

  it('sweeps expired entries periodically even when not full', async () => {
    const store = new MemoryNonceStore({ clock, maxEntries: 100, sweepIntervalMs: 60_000 });
    for (const nonceKey of ['a', 'b', 'c']) await store.rememberOnce(nonceKey, 5);
    expect(store.size).toBe(3);
    now += 60_000;
    await store.rememberOnce('d', 5);
    expect(store.size).toBe(1);
  });
});
