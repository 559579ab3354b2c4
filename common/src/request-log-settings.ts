/**
 * `log.requests`, the same setting on every process (core, gateway, portal): which requests get
 * their one JSON line. `all` (the default) logs each; `errors` only answers with a status of 400 or
 * more; `sampled` each request with probability `log.sampleRate`; `none` no request line. Audit
 * events are separate lines and are never filtered or sampled. At thousands of requests a second a
 * line per request is most of what a process writes (docs/operations.md#logs).
 */
export const REQUEST_LOG_MODES = ['all', 'errors', 'sampled', 'none'] as const;
export type RequestLogMode = (typeof REQUEST_LOG_MODES)[number];

export interface LogSettings {
  requests: RequestLogMode;
  /** With `sampled`: the share of requests logged, more than 0 and at most 1. */
  sampleRate: number;
}

export const DEFAULT_LOG: LogSettings = { requests: 'all', sampleRate: 0.01 };

/** The `log` section of each process's schema (its defaults filled by the loader). */
export const logSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requests: {
      enum: [...REQUEST_LOG_MODES],
      default: DEFAULT_LOG.requests,
      description: 'which requests get a JSON log line: all, errors (status 400 or more), sampled (sampleRate of them), none; audit lines are never affected',
    },
    sampleRate: { type: 'number', exclusiveMinimum: 0, maximum: 1, default: DEFAULT_LOG.sampleRate, description: 'with requests "sampled": the share of requests logged' },
  },
} as const;

/** `settings` with every default filled (for loaders without ajv's useDefaults). */
export function logSettings(given: Partial<LogSettings> | undefined): LogSettings {
  return { ...DEFAULT_LOG, ...given };
}

/** Whether a request answered with `status` gets its line under `settings`. */
export function logsRequest(settings: LogSettings, status: number): boolean {
  switch (settings.requests) {
    case 'all':
      return true;
    case 'errors':
      return status >= 400;
    case 'sampled':
      return Math.random() < settings.sampleRate;
    case 'none':
      return false;
  }
}
