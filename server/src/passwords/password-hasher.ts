import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hashRaw, verify as argon2Verify } from '@node-rs/argon2';
import { ServiceUnavailable, WeakPassword } from '../../../common/src/errors';
import {
  ARGON2ID_LIMITS,
  SCRYPT_LIMITS,
  formatPhc,
  parsePhc,
  usesParams,
  type Argon2idParams,
  type PhcAlgorithm,
  type ScryptParams,
} from './phc';
import { DEFAULT_MAX_COST, HashCostCeiling, type MaxCostSettings } from './hash-cost';

/** Longer passwords are refused before any hashing (argon2 and scrypt cost grows with input). */
export const MAX_PASSWORD_BYTES = 1024;
/** OWASP's minimum argon2id setting: m=19 MiB, t=2, p=1. */
export const DEFAULT_ARGON2: Readonly<Argon2idParams> = { memoryCost: 19456, timeCost: 2, parallelism: 1 };
/** OWASP-listed scrypt setting: N=2^17, r=8, p=1 (128 MiB per computation). */
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = { ln: 17, r: 8, p: 1 };
export const DEFAULT_MAX_QUEUE = 64;
const SALT_LENGTH = 16;
const HASH_LENGTH = 32;

export interface PasswordHasherOptions {
  algorithm?: PhcAlgorithm;
  argon2?: Partial<Argon2idParams>;
  scrypt?: Partial<ScryptParams>;
  /** Computations running at once (default os.availableParallelism()). */
  maxConcurrent?: number;
  /** Computations waiting for a slot (default 64); beyond that, 503 with Retry-After. */
  maxQueue?: number;
  /** Called as each hash computation starts (tests count them; metrics may too). */
  onCompute?: (event: ComputeEvent) => void;
  /** Compute the dummy hash in the constructor (default true; one-shot tools that never call verifyDummy turn it off). */
  precomputeDummy?: boolean;
  /** What a stored hash may cost to verify, as factors of the configured settings (default 4 and 4). */
  maxCost?: Partial<MaxCostSettings>;
}

export interface ComputeEvent {
  algorithm: PhcAlgorithm;
  operation: 'hash' | 'verify';
}

export interface PasswordHasherStats {
  /** Computations started (each one is a full argon2id or scrypt run). */
  started: number;
  completed: number;
  failed: number;
  /** Calls refused with 503 because the queue was full. */
  rejected: number;
  running: number;
  /** Queue depth: calls waiting for a slot. */
  queued: number;
}

export interface VerifyResult {
  ok: boolean;
  /** True when the password matched but the hash does not use the configured algorithm and parameters. */
  needsRehash: boolean;
  /**
   * Set when the stored hash was not computed because its cost is above `passwords.maxCost` (why, in
   * a sentence naming its parameters): a dummy verification was spent instead. Callers that know
   * whose hash it is say so in an audit line.
   */
  refused?: string;
}

const FAILED: VerifyResult = Object.freeze({ ok: false, needsRehash: false });

function tooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

function checkRange(name: string, value: number, range: { min: number; max: number }): number {
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new RangeError(`${name} must be an integer in ${range.min}..${range.max}, got ${value}`);
  }
  return value;
}

/** node:crypto's scrypt on the libuv thread pool, with maxmem raised to what N, r, p need. */
function scryptAsync(password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.ln;
  const maxmem = 128 * params.r * (N + params.p + 2) + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, { N, r: params.r, p: params.p, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/**
 * Hashes and verifies passwords as PHC strings (argon2id or scrypt). Every computation runs on a
 * native thread (libuv pool) through a bounded queue: at most `maxConcurrent` at once, at most
 * `maxQueue` waiting, anything more is refused at once with 503 `Retry-After: 1`.
 *
 * A dummy hash is computed once when the hasher is made (await `ready()` at start);
 * `verifyDummy()` checks a password against it so that an unknown, disabled or locked user costs
 * exactly one computation, like a wrong password.
 */
export class PasswordHasher {
  readonly algorithm: PhcAlgorithm;
  readonly argon2: Readonly<Argon2idParams>;
  readonly scrypt: Readonly<ScryptParams>;
  readonly maxConcurrent: number;
  readonly maxQueue: number;
  /** What a stored hash may cost; above it, verify() never computes it. */
  readonly ceiling: HashCostCeiling;
  private readonly onCompute?: (event: ComputeEvent) => void;
  private readonly counts = { started: 0, completed: 0, failed: 0, rejected: 0 };
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private dummy?: Promise<string>;

  constructor(options: PasswordHasherOptions = {}) {
    const algorithm = options.algorithm ?? 'argon2id';
    if (algorithm !== 'argon2id' && algorithm !== 'scrypt') throw new RangeError(`unknown algorithm "${algorithm}"`);
    this.algorithm = algorithm;
    const a = { ...DEFAULT_ARGON2, ...options.argon2 };
    this.argon2 = Object.freeze({
      memoryCost: checkRange('argon2.memoryCost', a.memoryCost, ARGON2ID_LIMITS.memoryCost),
      timeCost: checkRange('argon2.timeCost', a.timeCost, ARGON2ID_LIMITS.timeCost),
      parallelism: checkRange('argon2.parallelism', a.parallelism, ARGON2ID_LIMITS.parallelism),
    });
    if (this.argon2.memoryCost < 8 * this.argon2.parallelism) {
      throw new RangeError('argon2.memoryCost must be at least 8 * parallelism');
    }
    const s = { ...DEFAULT_SCRYPT, ...options.scrypt };
    this.scrypt = Object.freeze({
      ln: checkRange('scrypt.ln', s.ln, SCRYPT_LIMITS.ln),
      r: checkRange('scrypt.r', s.r, SCRYPT_LIMITS.r),
      p: checkRange('scrypt.p', s.p, SCRYPT_LIMITS.p),
    });
    this.maxConcurrent = checkRange('maxConcurrent', options.maxConcurrent ?? availableParallelism(), { min: 1, max: 1024 });
    this.maxQueue = checkRange('maxQueue', options.maxQueue ?? DEFAULT_MAX_QUEUE, { min: 0, max: 1_000_000 });
    this.ceiling = new HashCostCeiling(this, { ...DEFAULT_MAX_COST, ...options.maxCost });
    this.onCompute = options.onCompute;
    if (options.precomputeDummy !== false) void this.dummyHash();
  }

  get stats(): PasswordHasherStats {
    return { ...this.counts, running: this.running, queued: this.waiting.length };
  }

  /** Resolves once the dummy hash exists (rejects if computing it failed). */
  async ready(): Promise<void> {
    await this.dummyHash();
  }

  /** Hashes with the configured algorithm and parameters; WeakPassword when over 1024 bytes. */
  async hash(password: string): Promise<string> {
    if (typeof password !== 'string' || tooLong(password)) {
      throw new WeakPassword(`Password is longer than ${MAX_PASSWORD_BYTES} bytes`, {
        errors: [{ path: 'password', message: `must be at most ${MAX_PASSWORD_BYTES} bytes` }],
      });
    }
    const salt = randomBytes(SALT_LENGTH);
    if (this.algorithm === 'argon2id') {
      const params = { ...this.argon2 };
      const hash = await this.run('argon2id', 'hash', () => hashRaw(password, { ...params, outputLen: HASH_LENGTH, salt }));
      return formatPhc({ algorithm: 'argon2id', version: 19, params, salt, hash });
    }
    const params = { ...this.scrypt };
    const hash = await this.run('scrypt', 'hash', () => scryptAsync(password, salt, HASH_LENGTH, params));
    return formatPhc({ algorithm: 'scrypt', params, salt, hash });
  }

  /** Why a stored hash may not be kept (its cost is above `passwords.maxCost`), or undefined; PhcFormatError when malformed. */
  costProblem(phc: string): string | undefined {
    return this.ceiling.problem(parsePhc(phc));
  }

  /**
   * Checks a password against a PHC string (PhcFormatError when the string is malformed). A password
   * over 1024 bytes cannot match anything hash() made: not ok, without a computation. A hash above
   * the cost ceiling is never computed: it fails, after the work of a normal verification (the
   * dummy's), so a name with such a hash neither answers differently nor holds the pool.
   */
  async verify(phc: string, password: string): Promise<VerifyResult> {
    const parsed = parsePhc(phc);
    const refused = this.ceiling.problem(parsed);
    if (refused !== undefined) {
      await this.verify(await this.dummyHash(), typeof password === 'string' ? password : '');
      return { ok: false, needsRehash: false, refused };
    }
    if (typeof password !== 'string' || tooLong(password)) return FAILED;
    let ok: boolean;
    if (parsed.algorithm === 'argon2id') {
      ok = await this.run('argon2id', 'verify', () => argon2Verify(phc, password));
    } else {
      const { salt, hash, params } = parsed;
      const key = await this.run('scrypt', 'verify', () => scryptAsync(password, salt, hash.length, params));
      ok = timingSafeEqual(key, hash);
    }
    return ok ? { ok, needsRehash: !usesParams(parsed, this.algorithm, this) } : FAILED;
  }

  /** One computation of the configured cost against the dummy hash; always not ok. */
  async verifyDummy(password: string): Promise<VerifyResult> {
    await this.verify(await this.dummyHash(), password);
    return FAILED;
  }

  private dummyHash(): Promise<string> {
    if (!this.dummy) {
      const dummy = this.hash(randomBytes(32).toString('base64url'));
      this.dummy = dummy;
      // Forget a failed attempt (e.g. a full queue) so the next call computes it again.
      dummy.catch(() => {
        if (this.dummy === dummy) this.dummy = undefined;
      });
    }
    return this.dummy;
  }

  private async run<T>(algorithm: PhcAlgorithm, operation: ComputeEvent['operation'], work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      this.counts.started++;
      this.onCompute?.({ algorithm, operation });
      const result = await work();
      this.counts.completed++;
      return result;
    } catch (error) {
      this.counts.failed++;
      throw error;
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxQueue) {
      this.counts.rejected++;
      return Promise.reject(
        new ServiceUnavailable('Too many password checks at once; retry shortly', { headers: { 'Retry-After': '1' } }),
      );
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot straight to the next waiter, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
