import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

let loaded = false;

/**
 * Loads `.env` from the working directory into `process.env`, once per process, before any config
 * namespace is read: `validateEnv` calls it, so the HTTP process, the worker, the CLI, the TypeORM
 * CLI and migrations all see the same values. Variables already set in the environment win over
 * the file (the Node.js `--env-file` rule), so `PORT=4000 npm start` still overrides `.env`.
 * See docs/guide.md, "Configuration".
 */
export function loadEnvFile(path = resolve(process.cwd(), '.env')): void {
  if (loaded) return;
  loaded = true;
  if (existsSync(path)) process.loadEnvFile(path);
}
