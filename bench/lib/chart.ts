/** One point of a memory series: seconds since the load started, and bytes. */
export interface MemoryPoint {
  t: number;
  bytes: number;
}

const WIDTH = 40;
const MB = 1024 * 1024;

/**
 * A plain-text bar chart of one series, one line per point (at most `rows`, evenly picked, the first
 * and the last always kept), bars scaled from 0 to the series' maximum so that growth reads as length.
 */
export function barChart(title: string, points: MemoryPoint[], rows = 20): string {
  if (points.length === 0) return `${title}: no samples`;
  const step = Math.max(1, (points.length - 1) / (rows - 1));
  const picked: MemoryPoint[] = [];
  for (let i = 0; i < points.length - 1; i += step) picked.push(points[Math.round(i)]);
  picked.push(points[points.length - 1]);
  const max = Math.max(...picked.map((p) => p.bytes));
  const lines = picked.map((p) => {
    const bar = '█'.repeat(Math.max(1, Math.round((p.bytes / max) * WIDTH)));
    return `${String(Math.round(p.t)).padStart(6)} s ${(p.bytes / MB).toFixed(1).padStart(7)} MB ${bar}`;
  });
  return [title, ...lines].join('\n');
}
