/**
 * The last accepted time step per subject in Redis (used-steps.ts has the rule), on the Redis session
 * store's connection and under its prefix (`o:` keys), so that a code accepted by one core is refused
 * by every other. One script compares and sets; any Redis failure is ServiceUnavailable (503).
 */
import type Redis from 'ioredis';
import { failClosed, keyPart } from '../sessions/redis-common';
import { USED_STEP_TTL_SECONDS, type UsedSteps } from './used-steps';

/** KEYS: the subject's key. ARGV: step, ttl ms. 1 when the step is later than the held one (and is now held), else 0. */
const ACCEPT_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held and tonumber(held) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

interface ScriptedRedis extends Redis {
  svcOtpStep(key: string, step: number, ttlMs: number): Promise<number>;
}

export class RedisUsedSteps implements UsedSteps {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#prefix = `${prefix}o:`;
    redis.defineCommand('svcOtpStep', { numberOfKeys: 1, lua: ACCEPT_SCRIPT });
    this.#redis = redis as ScriptedRedis;
  }

  async accept(subject: string, step: number): Promise<boolean> {
    const accepted = await failClosed('second-factor step store', () => this.#redis.svcOtpStep(`${this.#prefix}${keyPart(subject)}`, step, USED_STEP_TTL_SECONDS * 1000));
    return accepted === 1;
  }
}
