import { fork } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';

/**
 * autocannon runs in a child process of its own: in the servers' process it would share their
 * event loop (and skew whichever side is measured). The parent forks this file per run.
 */
export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  durationSec: number;
  connections: number;
  pipelining: number;
}

export interface LoadResult {
  url: string;
  durationSec: number;
  requestsTotal: number;
  reqPerSecAvg: number;
  latencyAvgMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

/** Parent side: runs one job in a fresh child and resolves with its summary. */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'load-runner.js'), ['--child'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: LoadResult | undefined;
    child.once('message', (msg: { result?: LoadResult; error?: string }) => {
      if (msg.error) reject(new Error(`autocannon failed: ${msg.error}`));
      else result = msg.result;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`load runner exited with code ${code} and no result`));
    });
    child.send(job);
  });
}

async function childMain(): Promise<void> {
  const job = await new Promise<LoadJob>((resolve) => process.once('message', (m) => resolve(m as LoadJob)));
  const r = await autocannon({
    url: job.url,
    method: 'GET',
    headers: job.headers,
    duration: job.durationSec,
    connections: job.connections,
    pipelining: job.pipelining,
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = s.count ?? 0;
  const summary: LoadResult = {
    url: job.url,
    durationSec: r.duration,
    requestsTotal: r.requests.total,
    reqPerSecAvg: r.requests.average,
    latencyAvgMs: r.latency.average,
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
  };
  await new Promise<void>((resolve) => process.send!({ result: summary }, () => resolve()));
  process.exit(0);
}

if (require.main === module && process.argv.includes('--child')) {
  childMain().catch((err: unknown) => {
    process.send?.({ error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  });
}
