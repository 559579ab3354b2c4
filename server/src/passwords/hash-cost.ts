/**
 * The ceiling on what a stored password hash may cost to verify (SPEC section 2, `passwords.maxCost`).
 *
 * A hash's parameters are chosen by whoever wrote it: an imported line, a row edited in the database.
 * Without a ceiling, one argon2id hash at m=64 MiB, t=1000 let two wrong-password logins for that name
 * hold the whole hashing pool for 30 s (issue 24, item 10). So a stored hash is measured in the two
 * things a verification spends, memory and time, against the configured setting of its algorithm:
 *
 *   argon2id  memory m KiB;            time m·t (blocks processed; lanes share them, so p adds threads, not work)
 *   scrypt    memory 128·r·N bytes;    time N·r·p (node computes the p lanes one after another)
 *
 * and refused when either is above `memoryFactor` (time: `timeFactor`) times the configured setting's
 * (4 and 4 by default). Such a hash is refused at import and never computed at a login.
 */
import { NO_PARTIES, type Audit } from '../audit';
import { formatScryptSetting, type Argon2idParams, type PhcHash, type ScryptParams } from './phc';

export interface MaxCostSettings {
  /** A stored hash may use at most this many times the configured setting's memory. */
  memoryFactor: number;
  /** A stored hash may take at most this many times the configured setting's time. */
  timeFactor: number;
}

export const DEFAULT_MAX_COST: Readonly<MaxCostSettings> = Object.freeze({ memoryFactor: 4, timeFactor: 4 });

interface Cost {
  /** KiB held during one verification. */
  memoryKiB: number;
  /** Work in the algorithm's own unit (only compared with the same algorithm's). */
  time: number;
}

const argon2Cost = (p: Argon2idParams): Cost => ({ memoryKiB: p.memoryCost, time: p.memoryCost * p.timeCost });
const scryptCost = (p: ScryptParams): Cost => ({ memoryKiB: (128 * p.r * 2 ** p.ln) / 1024, time: 2 ** p.ln * p.r * p.p });

/** What stored hashes may cost, per algorithm: the configured settings times the factors. */
export class HashCostCeiling {
  readonly #argon2: Cost;
  readonly #scrypt: Cost;

  constructor(configured: { argon2: Argon2idParams; scrypt: ScryptParams }, readonly factors: Readonly<MaxCostSettings> = DEFAULT_MAX_COST) {
    if (!(factors.memoryFactor >= 1 && factors.timeFactor >= 1)) throw new RangeError('passwords.maxCost factors must be at least 1');
    const scale = (cost: Cost): Cost => ({ memoryKiB: cost.memoryKiB * factors.memoryFactor, time: cost.time * factors.timeFactor });
    this.#argon2 = scale(argon2Cost(configured.argon2));
    this.#scrypt = scale(scryptCost(configured.scrypt));
  }

  /** Why this hash costs too much to verify (a sentence naming its parameters and the limit), or undefined. */
  problem(hash: PhcHash): string | undefined {
    const [cost, limit, setting] =
      hash.algorithm === 'argon2id'
        ? [argon2Cost(hash.params), this.#argon2, `argon2id m=${hash.params.memoryCost},t=${hash.params.timeCost},p=${hash.params.parallelism}`]
        : [scryptCost(hash.params), this.#scrypt, `scrypt ${formatScryptSetting(hash.params)}`];
    const over = cost.memoryKiB > limit.memoryKiB ? `memory (${cost.memoryKiB} KiB; at most ${limit.memoryKiB})` : cost.time > limit.time ? `time (${this.factorOf(cost, limit)})` : undefined;
    return over === undefined ? undefined : `the hash's cost (${setting}) is above passwords.maxCost in ${over}`;
  }

  private factorOf(cost: Cost, limit: Cost): string {
    const configured = limit.time / this.factors.timeFactor;
    return `${Math.round((cost.time / configured) * 10) / 10}× the configured setting's; at most ${this.factors.timeFactor}×`;
  }
}

/**
 * The audit line of a verification that refused a stored hash (VerifyResult.refused), naming whose
 * hash it is, so that an operator can find it and reset the password or raise the ceiling.
 */
export function recordRefusedHash(audit: Pick<Audit, 'record'>, subject: string, verdict: { refused?: string }): void {
  if (verdict.refused === undefined) return;
  // Met while verifying, before any session: the line names whose hash it is.
  audit.record({ ...NO_PARTIES, event: 'password_hash_refused', outcome: 'failure', reason: 'cost_above_ceiling', subject, detail: verdict.refused });
}
