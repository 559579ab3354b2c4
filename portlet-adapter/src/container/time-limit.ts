/** A portlet took longer than the portal waits for one window (SPEC 10.2: 5 s). */
export class TimeLimitExceeded extends Error {
  constructor(readonly limitMs: number) {
    super(`no answer within ${limitMs} ms`);
    this.name = 'TimeLimitExceeded';
  }
}

/**
 * Awaits `work` for at most `ms`. The work is not stopped (a promise cannot be, and portlets are
 * trusted code: a synchronous loop cannot be stopped either); its late result or failure is dropped.
 */
export function withTimeLimit<T>(work: () => T | Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const running = Promise.resolve().then(work);
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeLimitExceeded(ms)), ms);
  });
  running.catch(() => undefined);
  return Promise.race([running, limit]).finally(() => clearTimeout(timer));
}
