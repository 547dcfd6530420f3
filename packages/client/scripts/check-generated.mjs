// @ts-check
/**
 * Fails (exit 1) when src/generated/ is not what the generator makes from docs/openapi.json now:
 * regenerates into a temporary folder and compares every file. Run by the root test suite
 * (test/client/client-generated.e2e-spec.ts); fix with `npm run client:generate`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import config from '../openapi-ts.config.mjs';

const committed = fileURLToPath(new URL('../src/generated', import.meta.url));
const fresh = mkdtempSync(join(tmpdir(), 'sp-client-gen-'));

/** @param {string} dir @returns {Map<string, string>} */
function files(dir) {
  const out = new Map();
  const walk = (/** @type {string} */ d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

try {
  await createClient({ ...config, output: { ...config.output, path: fresh }, logs: { level: 'silent' } });
  const want = files(fresh);
  const have = files(committed);
  const problems = [];
  for (const [name, text] of want) {
    if (!have.has(name)) problems.push(`missing: ${name}`);
    else if (have.get(name) !== text) problems.push(`differs: ${name}`);
  }
  for (const name of have.keys()) if (!want.has(name)) problems.push(`not generated any more: ${name}`);
  if (problems.length) {
    process.stderr.write(
      `packages/client/src/generated is stale (run \`npm run client:generate\`):\n  ${problems.join('\n  ')}\n`,
    );
    process.exitCode = 1;
  } else {
    process.stdout.write(`packages/client/src/generated is current (${want.size} files)\n`);
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
