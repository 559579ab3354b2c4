/**
 * SPEC section 5's test vectors: sealed with node-forge (client), opened with node:crypto (server).
 * Both directions must reproduce the SPEC byte for byte, or outside implementations cannot interoperate.
 */
import forge from 'node-forge';
import { ClientSealer, deriveSealingKey } from '../../client/src/clientcred/sealer';
import { deriveClientKey } from '../../server/src/clientcred/client-key';
import { ClientCredential, ClientCredentialRejected, openSealed } from '../../server/src/clientcred/client-credential';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { clientcredAad, paramAad } from '../../common/src/clientcred/format';

const SECRET = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const CLIENT_ID = 'portal-gateway';
const KEY_HEX = 'fb6764795205b4addb9707b865503f486cf640757729bf2697792b28a6f676ee';
const TS = 1795000000;
const NONCE = 'AAECAwQFBgcICQoLDA0ODw';
const CLIENTCRED_PLAINTEXT = '{"cid":"portal-gateway","ts":1795000000,"nonce":"AAECAwQFBgcICQoLDA0ODw"}';
const CLIENTCRED =
  'v1.AAECAwQFBgcICQoLlf3pZRE21hC13_XWoalAl4HzflDiShq94LuY-7qsrOaRAQL6PeeJOq9e1l6lst30XocJVqo6CM-Z7oTUyTD7afaCtGHQrSrUVieBGkEmDpNkec4eqmXLS2w';
/** Written with escapes so that no editor can change its normalisation form. */
const UTF8_USER = 'j\u00fcrgen.m\u00fcller@ex\u00e4mple.org';

const VECTORS = [
  { name: 'user', value: 'jdoe', iv: '0c0d0e0f1011121314151617', sealed: 'v1.DA0ODxAREhMUFRYX3tEGOFaq1M84sCIGfTTR3f6FrGc' },
  { name: 'password', value: 'S3cure-pass!', iv: '18191a1b1c1d1e1f20212223', sealed: 'v1.GBkaGxwdHh8gISIjjuFA8wy9K7qWQXPHilfWY9Ayw2jCAhbc8OABog' },
  {
    name: 'user',
    value: UTF8_USER,
    iv: '2425262728292a2b2c2d2e2f',
    sealed: 'v1.JCUmJygpKissLS4vuGTFqnzdltItJ2LERhN99GhTKghX_Ep4nnDihN5Iit9Ha2I4g9Jmhvew5is',
  },
] as const;

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

describe('SPEC 5 test vectors', () => {
  const sealer = new ClientSealer(CLIENT_ID, SECRET);
  const serverKey = deriveClientKey(SECRET, CLIENT_ID);

  it('derives the key with node-forge (client) and node:crypto (server)', () => {
    expect(forge.util.bytesToHex(deriveSealingKey(SECRET, CLIENT_ID))).toBe(KEY_HEX);
    expect(serverKey.toString('hex')).toBe(KEY_HEX);
  });

  it('derives the server key once per process per client', () => {
    expect(deriveClientKey(SECRET, CLIENT_ID)).toBe(serverKey);
  });

  it('seals the clientcred with node-forge', () => {
    expect(sealer.sealClientCred({ now: TS, nonce: NONCE, iv: hex('000102030405060708090a0b') })).toEqual({
      clientcred: CLIENTCRED,
      nonce: NONCE,
    });
  });

  it('opens the clientcred with node:crypto', async () => {
    expect(openSealed([serverKey], CLIENTCRED, clientcredAad(CLIENT_ID))).toBe(CLIENTCRED_PLAINTEXT);
    const credential = await ClientCredential.open({
      clientId: CLIENT_ID,
      keys: [serverKey],
      clientcred: CLIENTCRED,
      now: TS,
      nonces: new MemoryNonceStore(),
    });
    expect(credential.nonce).toBe(NONCE);
    expect(credential.issuedAt).toBe(TS);
  });

  it.each(VECTORS)('seals $name "$value" with node-forge', ({ name, value, iv, sealed }) => {
    expect(sealer.sealParam(name, value, NONCE, hex(iv))).toBe(sealed);
  });

  it.each(VECTORS)('opens $name "$value" with node:crypto', async ({ name, value, sealed }) => {
    expect(openSealed([serverKey], sealed, paramAad(CLIENT_ID, name, NONCE))).toBe(value);
    const credential = await ClientCredential.open({
      clientId: CLIENT_ID,
      keys: [serverKey],
      clientcred: CLIENTCRED,
      now: TS,
      nonces: new MemoryNonceStore(),
    });
    expect(credential.openParam(name, sealed)).toBe(value);
  });

  it('refuses the password opened with parameter name "user"', async () => {
    const password = VECTORS[1].sealed;
    expect(() => openSealed([serverKey], password, paramAad(CLIENT_ID, 'user', NONCE))).toThrow(ClientCredentialRejected);
    const credential = await ClientCredential.open({
      clientId: CLIENT_ID,
      keys: [serverKey],
      clientcred: CLIENTCRED,
      now: TS,
      nonces: new MemoryNonceStore(),
    });
    expect(() => credential.openParam('user', password)).toThrow(expect.objectContaining({ code: 'invalid_client', reason: 'param_invalid' }));
  });

  it('refuses the password opened with another nonce', () => {
    const otherNonce = 'AAECAwQFBgcICQoLDA0OEA';
    const attempt = () => openSealed([serverKey], VECTORS[1].sealed, paramAad(CLIENT_ID, 'password', otherNonce));
    expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_client', reason: 'tag_mismatch' }));
  });
});
