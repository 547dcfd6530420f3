import { readFileSync, writeFileSync } from 'node:fs';
import { PROVIDER_PLUGINS } from './providers/provider.list';
import { withProviderEnvExample } from './providers/provider-settings';

/**
 * `npm run env:example`: rewrites the networks part of `.env.example` (between its two marker lines)
 * from the settings the provider plugins declare; the rest of the file is written by hand. The test
 * suite fails when the committed file differs (test/foundation/env-example-current.e2e-spec.ts).
 */
function main(): void {
  const target = process.argv[2] ?? '.env.example';
  const current = readFileSync(target, 'utf8');
  const next = withProviderEnvExample(current, PROVIDER_PLUGINS);
  if (next === current) {
    process.stderr.write(`${target} is up to date\n`);
    return;
  }
  writeFileSync(target, next);
  process.stderr.write(`Wrote ${target}\n`);
}

main();
