import { stat } from 'node:fs/promises';
import { runsHttp } from './app-role';
import { appConfig } from './config';

/**
 * Container healthcheck, one command for every role (`node dist/src/healthcheck.js`): a process
 * serving HTTP must answer `GET /api/health` with 200; a worker must have touched its heartbeat file
 * within three heartbeat periods (it does so only while Postgres and Redis answer). Exit 0 = healthy.
 */
async function check(): Promise<string> {
  const cfg = appConfig();
  if (runsHttp(cfg.role)) {
    const res = await fetch(`http://127.0.0.1:${cfg.port}/api/health`, { signal: AbortSignal.timeout(3_000) });
    if (res.status !== 200) throw new Error(`GET /api/health answered ${res.status}`);
    return 'api healthy';
  }
  const age = Date.now() - (await stat(cfg.heartbeatFile)).mtimeMs;
  if (age > cfg.heartbeatSeconds * 3_000) throw new Error(`heartbeat is ${Math.round(age / 1000)} s old`);
  return 'worker healthy';
}

check().then(
  (message) => {
    process.stdout.write(`${message}\n`);
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`unhealthy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
