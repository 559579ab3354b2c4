import type { Row } from './scenario';

const num = (value: number | null, digits: number): string => (value === null || !Number.isFinite(value) ? '—' : value.toFixed(digits));
const thousands = (value: number | null): string => (value === null || !Number.isFinite(value) ? '—' : Math.round(value).toLocaleString('en-US'));

/** The results as one Markdown table (readable in a terminal, pasteable into the README). */
export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'throughput', 'p50 ms', 'p99 ms', 'ratio', 'target', 'met'];
  const lines = rows.map((r) => [
    r.name + (r.note ? ` (${r.note})` : ''),
    r.throughput === null ? '—' : `${thousands(r.throughput)} ${r.unit}`,
    num(r.p50Ms, 2),
    num(r.p99Ms, 2),
    r.ratio === null ? '—' : num(r.ratio, 2),
    r.target,
    r.met === null ? '—' : r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const right = new Set([1, 2, 3, 4]);
  const cell = (text: string, i: number) => (right.has(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const row = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`;
  return [row(header), rule, ...lines.map(row)].join('\n');
}
