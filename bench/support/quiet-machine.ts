import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { writeJson } from './report';

/**
 * Benchmarks compare our service with a bare baseline in the same run. Other work on the machine
 * slows the bare side more than ours (it has less headroom to lose), so a busy machine flatters the
 * ratio. Every bench therefore records how busy the machine was and refuses to record a noisy run.
 *
 * - Load: the 1-minute load average at start must be below BENCH_MAX_LOAD (0.7).
 * - Outside CPU: the CPU time the whole machine spent (from /proc/stat) minus what the bench's own
 *   process tree, Postgres and Redis spent, divided by the run's wall time, must stay below
 *   BENCH_MAX_OUTSIDE_CPU (0.10 cores on average).
 *
 * A noisy result is printed and, unless BENCH_ALLOW_NOISY=1, not written to bench/results and the
 * bench exits 1. With BENCH_ALLOW_NOISY=1 it is written with `machine.noisy: true`.
 */

const TICKS = 100; // USER_HZ on Linux

export interface MachineReport {
  loadAverage1m: { start: number; end: number };
  wallSeconds: number;
  /** Core-seconds of CPU used outside the bench, Postgres and Redis during the run. */
  outsideCpuSeconds: number;
  /** The same per second of the run (cores busy with other work on average). */
  outsideCpuShare: number;
  noisy: boolean;
  reasons: string[];
}

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) ? n : fallback;
}

/** Busy jiffies of the whole machine (all CPUs), from the first line of /proc/stat. */
function machineBusyTicks(): number {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const f = cpu.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] ?? 0);
}

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime: the process and its reaped children. */
  ticks: number;
}

function readProcs(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      out.push({
        pid: Number(d),
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
      });
    } catch {
      // the process exited while we read
    }
  }
  return out;
}

/** Ticks spent by the bench's process tree and by the Postgres and Redis servers it uses. */
function ownTicks(): number {
  const procs = readProcs();
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const tree = new Set<number>();
  const stack = [process.pid];
  while (stack.length) {
    const pid = stack.pop()!;
    if (tree.has(pid)) continue;
    tree.add(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  let ticks = 0;
  for (const p of procs) {
    if (tree.has(p.pid) || p.comm.startsWith('postgres') || p.comm.startsWith('redis')) ticks += p.ticks;
  }
  return ticks;
}

export class MachineWatch {
  private constructor(
    private readonly startedAt: number,
    private readonly loadAtStart: number,
    private readonly busyAtStart: number,
    private readonly ownAtStart: number,
  ) {}

  /** Call first thing in a bench, before starting servers. */
  static start(): MachineWatch {
    return new MachineWatch(performance.now(), Number(loadavg()[0].toFixed(2)), machineBusyTicks(), ownTicks());
  }

  get loadAverageAtStart(): number {
    return this.loadAtStart;
  }

  /** Call before stopping the bench's servers, so their CPU is still attributed to the bench. */
  finish(): MachineReport {
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    const busy = (machineBusyTicks() - this.busyAtStart) / TICKS;
    const own = (ownTicks() - this.ownAtStart) / TICKS;
    const outsideCpuSeconds = Math.max(0, busy - own);
    const outsideCpuShare = wallSeconds > 0 ? outsideCpuSeconds / wallSeconds : 0;
    const maxLoad = numberEnv('BENCH_MAX_LOAD', 0.7);
    const maxOutside = numberEnv('BENCH_MAX_OUTSIDE_CPU', 0.1);
    const reasons: string[] = [];
    if (this.loadAtStart >= maxLoad) reasons.push(`load average ${this.loadAtStart} at start (limit ${maxLoad})`);
    if (outsideCpuShare >= maxOutside)
      reasons.push(
        `other processes used ${outsideCpuShare.toFixed(2)} cores on average (limit ${maxOutside}): ` +
          `${outsideCpuSeconds.toFixed(1)} CPU s in ${wallSeconds.toFixed(0)} s`,
      );
    return {
      loadAverage1m: { start: this.loadAtStart, end: Number(loadavg()[0].toFixed(2)) },
      wallSeconds: Number(wallSeconds.toFixed(1)),
      outsideCpuSeconds: Number(outsideCpuSeconds.toFixed(2)),
      outsideCpuShare: Number(outsideCpuShare.toFixed(3)),
      noisy: reasons.length > 0,
      reasons,
    };
  }
}

/**
 * Writes a bench's result with its machine report, unless the run was noisy and noise is not
 * allowed. Returns the exit code for the bench: 1 for a refused noisy run, else 0.
 */
export function recordResult(path: string, data: Record<string, unknown>, machine: MachineReport): number {
  const allowNoisy = process.env.BENCH_ALLOW_NOISY === '1';
  console.log(
    `machine: load average ${machine.loadAverage1m.start} at start, ${machine.loadAverage1m.end} at end; ` +
      `other processes ${machine.outsideCpuShare} cores over ${machine.wallSeconds} s` +
      (machine.noisy ? ` -> NOISY: ${machine.reasons.join('; ')}` : ' -> quiet'),
  );
  if (machine.noisy && !allowNoisy) {
    console.error(
      `Not recording ${path}: the machine was busy. Stop other work and run again, ` +
        'or set BENCH_ALLOW_NOISY=1 to record it marked noisy.',
    );
    return 1;
  }
  writeJson(path, { ...data, machine });
  console.log(`results written to ${path}`);
  return 0;
}
