/**
 * A one-line progress bar on a terminal (`svc import`, `svc export`): redrawn in place with `\r`
 * when the shown figure changes, and nothing at all when the stream is not a terminal, so that logs
 * and pipes never fill with it.
 */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Progress {
  update(done: number, total?: number): void;
  /** Ends the line (when anything was drawn since the last finish). */
  finish(): void;
}

const WIDTH = 30;

export function progressBar(stream: ProgressStream, label: string, total?: number): Progress {
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  let step: number | undefined;
  let known = total;
  return {
    update(done, newTotal) {
      known = newTotal ?? known;
      const share = known ? Math.min(1, done / known) : 0;
      // Redrawn once per percent (or per thousand when the total is unknown), and at the end.
      const next = known ? Math.floor(share * 100) : Math.floor(done / 1000);
      if (next === step && done !== known) return;
      step = next;
      const filled = Math.round(share * WIDTH);
      stream.write(known ? `\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${next}% ${done}/${known}` : `\r${label} ${done}`);
    },
    finish() {
      if (step !== undefined) stream.write('\n');
      step = undefined;
    },
  };
}
