import { verify as argon2Verify } from '@node-rs/argon2';
import { ServiceUnavailable, WeakPassword } from '../../common/src/errors';
import {
  DEFAULT_ARGON2,
  DEFAULT_SCRYPT,
  MAX_PASSWORD_BYTES,
  PasswordHasher,
  type ComputeEvent,
  type PasswordHasherOptions,
} from '../../server/src/passwords/password-hasher';
import { PhcFormatError, parsePhc } from '../../server/src/passwords/phc';

/** Cheap parameters keep the suite fast; one test below uses the real defaults. */
const FAST: PasswordHasherOptions = {
  argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
  scrypt: { ln: 10, r: 8, p: 1 },
};

async function fastHasher(options: PasswordHasherOptions = {}): Promise<PasswordHasher> {
  const hasher = new PasswordHasher({ ...FAST, ...options });
  await hasher.ready();
  return hasher;
}

describe('PasswordHasher', () => {
  it('uses the OWASP defaults', () => {
    const hasher = new PasswordHasher({ precomputeDummy: false });
    expect(hasher.algorithm).toBe('argon2id');
    expect(hasher.argon2).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(hasher.scrypt).toEqual({ ln: 17, r: 8, p: 1 });
    expect(hasher.maxQueue).toBe(64);
    expect(hasher.maxConcurrent).toBeGreaterThanOrEqual(1);
    expect(DEFAULT_ARGON2).toEqual(hasher.argon2);
    expect(DEFAULT_SCRYPT).toEqual(hasher.scrypt);
  });

  it('refuses invalid settings', () => {
    expect(() => new PasswordHasher({ argon2: { timeCost: 0 } })).toThrow(RangeError);
    expect(() => new PasswordHasher({ scrypt: { ln: 0 } })).toThrow(RangeError);
    expect(() => new PasswordHasher({ maxConcurrent: 0 })).toThrow(RangeError);
    expect(() => new PasswordHasher({ maxQueue: -1 })).toThrow(RangeError);
    expect(() => new PasswordHasher({ maxQueue: 1.5 })).toThrow(RangeError);
  });

  it.each(['argon2id', 'scrypt'] as const)('%s: hash then verify; a wrong password fails', async (algorithm) => {
    const hasher = await fastHasher({ algorithm });
    const phc = await hasher.hash('correct horse battery staple');
    expect(phc.startsWith(`$${algorithm}$`)).toBe(true);
    expect(parsePhc(phc)).toMatchObject({ algorithm });
    expect(parsePhc(phc).salt).toHaveLength(16);
    expect(parsePhc(phc).hash).toHaveLength(32);
    await expect(hasher.verify(phc, 'correct horse battery staple')).resolves.toEqual({ ok: true, needsRehash: false });
    await expect(hasher.verify(phc, 'correct horse battery stapler')).resolves.toEqual({ ok: false, needsRehash: false });
    await expect(hasher.verify(phc, '')).resolves.toEqual({ ok: false, needsRehash: false });
    // Two hashes of the same password differ (random salt).
    expect(await hasher.hash('correct horse battery staple')).not.toBe(phc);
  });

  it('handles non-ASCII passwords as UTF-8', async () => {
    const hasher = await fastHasher();
    const phc = await hasher.hash('pässwörd-😀-日本');
    await expect(hasher.verify(phc, 'pässwörd-😀-日本')).resolves.toMatchObject({ ok: true });
    await expect(hasher.verify(phc, 'passwort-😀-日本')).resolves.toMatchObject({ ok: false });
  });

  it('writes argon2id hashes that @node-rs/argon2 itself verifies', async () => {
    const hasher = await fastHasher();
    const phc = await hasher.hash('interop');
    await expect(argon2Verify(phc, 'interop')).resolves.toBe(true);
  });

  it('verifies hashes of either algorithm whatever it is configured for', async () => {
    const argon = await fastHasher({ algorithm: 'argon2id' });
    const scrypt = await fastHasher({ algorithm: 'scrypt' });
    const a = await argon.hash('same password');
    const s = await scrypt.hash('same password');
    await expect(argon.verify(s, 'same password')).resolves.toEqual({ ok: true, needsRehash: true });
    await expect(scrypt.verify(a, 'same password')).resolves.toEqual({ ok: true, needsRehash: true });
    await expect(argon.verify(s, 'other password')).resolves.toEqual({ ok: false, needsRehash: false });
  });

  it('asks for a rehash when the parameters change', async () => {
    const old = await fastHasher();
    const phc = await old.hash('upgrade me');
    const stronger = await fastHasher({ argon2: { memoryCost: 2048, timeCost: 1, parallelism: 1 } });
    await expect(stronger.verify(phc, 'upgrade me')).resolves.toEqual({ ok: true, needsRehash: true });
    const moreScrypt = await fastHasher({ algorithm: 'scrypt' });
    const scryptPhc = await moreScrypt.hash('upgrade me');
    const scryptLn11 = await fastHasher({ algorithm: 'scrypt', scrypt: { ln: 11 } });
    await expect(scryptLn11.verify(scryptPhc, 'upgrade me')).resolves.toEqual({ ok: true, needsRehash: true });
    // After the rehash the new hash is current.
    const rehashed = await stronger.hash('upgrade me');
    await expect(stronger.verify(rehashed, 'upgrade me')).resolves.toEqual({ ok: true, needsRehash: false });
  });

  it('works at the real defaults, off the event loop', async () => {
    const hasher = new PasswordHasher();
    await hasher.ready();
    const order: string[] = [];
    const hashing = hasher.hash('default cost').then((phc) => {
      order.push('hash');
      return phc;
    });
    setImmediate(() => order.push('immediate'));
    const phc = await hashing;
    expect(order).toEqual(['immediate', 'hash']);
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    await expect(hasher.verify(phc, 'default cost')).resolves.toEqual({ ok: true, needsRehash: false });
  });

  it('keeps the event loop turning during a verify', async () => {
    const hasher = await fastHasher({ argon2: { memoryCost: 8192, timeCost: 2, parallelism: 1 } });
    const phc = await hasher.hash('responsive');
    let ticks = 0;
    let settled = false;
    const tick = () => {
      ticks++;
      if (!settled) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await hasher.verify(phc, 'responsive');
    settled = true;
    expect(result.ok).toBe(true);
    expect(ticks).toBeGreaterThanOrEqual(1);
  });

  it('counts every computation and reports it to onCompute', async () => {
    const events: ComputeEvent[] = [];
    const hasher = await fastHasher({ onCompute: (e) => events.push(e) });
    expect(events).toEqual([{ algorithm: 'argon2id', operation: 'hash' }]); // the dummy
    const phc = await hasher.hash('counted');
    await hasher.verify(phc, 'counted');
    await hasher.verify(phc, 'wrong');
    expect(events).toHaveLength(4);
    expect(hasher.stats).toEqual({ started: 4, completed: 4, failed: 0, rejected: 0, running: 0, queued: 0 });
  });

  it.each(['argon2id', 'scrypt'] as const)('%s: verifyDummy costs exactly one computation and never succeeds', async (algorithm) => {
    const events: ComputeEvent[] = [];
    const hasher = await fastHasher({ algorithm, onCompute: (e) => events.push(e) });
    const before = hasher.stats.started;
    events.length = 0;
    await expect(hasher.verifyDummy('anything')).resolves.toEqual({ ok: false, needsRehash: false });
    expect(hasher.stats.started - before).toBe(1);
    expect(events).toEqual([{ algorithm, operation: 'verify' }]);
    // The same number as a wrong password for a real user.
    const phc = await hasher.hash('real user');
    const mid = hasher.stats.started;
    await hasher.verify(phc, 'wrong');
    expect(hasher.stats.started - mid).toBe(1);
    await hasher.verifyDummy('again');
    expect(hasher.stats.started - mid).toBe(2);
  });

  it('computes the dummy once, at construction', async () => {
    const hasher = new PasswordHasher(FAST);
    expect(hasher.stats.running).toBe(1); // already taken by the dummy, before any call
    await hasher.ready();
    await hasher.verifyDummy('a');
    await hasher.verifyDummy('b');
    expect(hasher.stats.started).toBe(3);
  });

  it('refuses over-long passwords without computing', async () => {
    const hasher = await fastHasher();
    const phc = await hasher.hash('short enough');
    const started = hasher.stats.started;
    const long = 'x'.repeat(MAX_PASSWORD_BYTES + 1);
    await expect(hasher.hash(long)).rejects.toBeInstanceOf(WeakPassword);
    await expect(hasher.hash(long)).rejects.toMatchObject({ status: 400, errors: [{ path: 'password' }] });
    // Bytes, not characters: 257 four-byte characters are over the limit.
    await expect(hasher.hash('😀'.repeat(257))).rejects.toBeInstanceOf(WeakPassword);
    await expect(hasher.verify(phc, long)).resolves.toEqual({ ok: false, needsRehash: false });
    await expect(hasher.verifyDummy(long)).resolves.toEqual({ ok: false, needsRehash: false });
    expect(hasher.stats.started).toBe(started);
    // Exactly at the limit is fine.
    await expect(hasher.hash('x'.repeat(MAX_PASSWORD_BYTES))).resolves.toMatch(/^\$argon2id\$/);
  });

  it('refuses a malformed hash without computing', async () => {
    const hasher = await fastHasher();
    const started = hasher.stats.started;
    await expect(hasher.verify('$argon2id$v=19$m=1024,t=1,p=1$bad', 'pw')).rejects.toBeInstanceOf(PhcFormatError);
    await expect(hasher.verify('plaintext', 'pw')).rejects.toBeInstanceOf(PhcFormatError);
    expect(hasher.stats.started).toBe(started);
  });

  it('bounds the queue: beyond maxConcurrent + maxQueue it answers 503 with Retry-After at once', async () => {
    const hasher = await fastHasher({ maxConcurrent: 1, maxQueue: 1, argon2: { memoryCost: 4096, timeCost: 2, parallelism: 1 } });
    const order: string[] = [];
    const first = hasher.hash('one').then(() => order.push('first'));
    const second = hasher.hash('two').then(() => order.push('second'));
    expect(hasher.stats).toMatchObject({ running: 1, queued: 1 });
    const third = hasher.hash('three').catch((error: unknown) => {
      order.push('third rejected');
      throw error;
    });
    await expect(third).rejects.toBeInstanceOf(ServiceUnavailable);
    await expect(third).rejects.toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '1' } });
    await expect(hasher.verifyDummy('four')).rejects.toMatchObject({ status: 503 });
    await Promise.all([first, second]);
    expect(order).toEqual(['third rejected', 'first', 'second']);
    expect(hasher.stats).toMatchObject({ rejected: 2, running: 0, queued: 0 });
    // Capacity is back once the queue drains.
    await expect(hasher.hash('five')).resolves.toMatch(/^\$argon2id\$/);
  });

  it('never runs more than maxConcurrent at once', async () => {
    const hasher = await fastHasher({ maxConcurrent: 2, maxQueue: 10 });
    let peak = 0;
    const finished: number[] = [];
    const jobs = Array.from({ length: 8 }, (_, i) =>
      hasher.hash(`password ${i}`).then(() => {
        finished.push(i);
      }),
    );
    const watch = setInterval(() => {
      peak = Math.max(peak, hasher.stats.running);
    }, 0);
    peak = Math.max(peak, hasher.stats.running);
    expect(hasher.stats.queued).toBe(6);
    await Promise.all(jobs);
    clearInterval(watch);
    expect(peak).toBeLessThanOrEqual(2);
    expect(finished).toHaveLength(8);
    expect(hasher.stats).toMatchObject({ running: 0, queued: 0, rejected: 0 });
  });

  it('serves the queue first come, first served', async () => {
    const hasher = await fastHasher({ maxConcurrent: 1, maxQueue: 10 });
    const finished: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => hasher.hash(`pw ${i}`).then(() => finished.push(i))));
    expect(finished).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('frees the slot when a computation fails', async () => {
    const onCompute = () => {
      throw new Error('boom');
    };
    const broken = new PasswordHasher({ ...FAST, maxConcurrent: 1, maxQueue: 0, precomputeDummy: false, onCompute });
    await expect(broken.hash('x')).rejects.toThrow('boom');
    expect(broken.stats).toMatchObject({ started: 1, failed: 1, running: 0 });
    await expect(broken.hash('y')).rejects.toThrow('boom'); // not 503: the slot was released
  });
});
