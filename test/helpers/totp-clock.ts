import { execFileSync } from 'node:child_process';

/** One TOTP step (RFC 6238's default, as svc's). */
const STEP_MS = 30_000;

/**
 * A core's injected clock for second-factor tests: it starts on a step boundary 3.5 to 4 minutes
 * before now (a gateway's clientcred carries the real time, and the core allows it 300 s), and moves
 * a step at a time, so every code's step is chosen, never waited for (about ten codes fit before the
 * clock passes the real time). Codes are Debian's oathtool's, not svc's own.
 */
export class TotpClock {
  #ms = Math.ceil((Date.now() - 240_000) / STEP_MS) * STEP_MS;

  /** The clock's time (for `startTestServer({ now })`). */
  readonly now = (): number => this.#ms;

  /** Moves to the next step: a code used once is refused again within its step. */
  nextStep(): void {
    this.#ms += STEP_MS;
  }

  /** The code oathtool gives for a base32 `secret` at this clock's time. */
  code(secret: string): string {
    return execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${Math.floor(this.#ms / 1000)}`], { encoding: 'utf8' }).trim();
  }
}
