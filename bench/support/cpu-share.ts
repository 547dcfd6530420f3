import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds used so far per process kind: this process, its children, postgres, redis. Linux /proc only. */
export type CpuSnapshot = Record<string, number>;

const TICKS = 100; // USER_HZ on Linux

export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = {};
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const ppid = Number(fields[1]);
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
      const kind =
        Number(pid) === process.pid
          ? 'service (node)'
          : ppid === process.pid
            ? 'children (fakes, load)'
            : comm.startsWith('postgres')
              ? 'postgres'
              : comm.startsWith('redis')
                ? 'redis'
                : null;
      if (kind) out[kind] = (out[kind] ?? 0) + seconds;
    } catch {
      // the process exited while we read
    }
  }
  return out;
}

/** Adds the CPU seconds used between two snapshots to `total`, per kind. */
export function addCpu(total: CpuSnapshot, before: CpuSnapshot, after: CpuSnapshot): void {
  for (const k of Object.keys(after)) total[k] = (total[k] ?? 0) + after[k] - (before[k] ?? 0);
}

/** CPU milliseconds per unit of work, per kind, as a printable line. */
export function cpuPer(total: CpuSnapshot, units: number): string {
  return Object.entries(total)
    .map(([k, seconds]) => `${k} ${((seconds * 1000) / units).toFixed(2)} ms`)
    .join(', ');
}
