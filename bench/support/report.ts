import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { LoadResult } from './load-runner';

export type Side = 'bare' | 'ours';

export interface Run {
  side: Side;
  round: number;
  result: LoadResult;
  /** CPU time (user+system) of this process, which hosts both servers, per request of the run. */
  serverCpuUsPerReq: number;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The run with the highest average req/s of one side. */
export function best(runs: Run[], side: Side): Run {
  return runs.filter((r) => r.side === side).reduce((a, b) => (b.result.reqPerSecAvg > a.result.reqPerSecAvg ? b : a));
}

function row(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

function cells(label: string, r: Run): (string | number)[] {
  const x = r.result;
  return [
    label,
    fmt(x.reqPerSecAvg),
    fmt(x.latencyAvgMs, 2),
    x.latencyP50Ms,
    x.latencyP99Ms,
    fmt(r.serverCpuUsPerReq, 0),
    x.non2xx,
  ];
}

export function printTable(runs: Run[], ratio: number): void {
  const widths = [22, 10, 8, 8, 8, 12, 8];
  const header = row(['run', 'req/s', 'avg ms', 'p50 ms', 'p99 ms', 'cpu us/req', 'non-2xx'], widths);
  const lines = [header, '-'.repeat(header.length)];
  for (const r of runs) lines.push(row(cells(`${r.side} round ${r.round}`, r), widths));
  lines.push('-'.repeat(header.length));
  for (const side of ['bare', 'ours'] as const)
    lines.push(row(cells(`${side} (best round)`, best(runs, side)), widths));
  lines.push(row(['ratio ours/bare req/s', fmt(ratio, 2), '', '', '', '', ''], widths));
  console.log(`\n${lines.join('\n')}\n`);
}

export function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}
