import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { createHttpApp } from './app.factory';
import { databaseConfig } from './config';
import { prepareDatabase } from './database/database-bootstrap';
import { buildOpenApiDocument, EXAMPLE_SERVERS } from './docs/openapi';

/**
 * `npm run openapi`: writes the OpenAPI document to docs/openapi.json. The test suite fails when
 * the committed copy differs from what the code generates (test/foundation/openapi-current.e2e-spec.ts).
 * `servers` lists the documented example addresses, not this machine's configuration, so the file is stable.
 */
async function main(): Promise<void> {
  const target = process.argv[2] ?? 'docs/openapi.json';
  const db = databaseConfig();
  await prepareDatabase(db.url, db.migrationsRun, db.timeouts.connectMs);
  const app = await createHttpApp('api');
  await app.init();
  writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(app, EXAMPLE_SERVERS), null, 2)}\n`);
  await app.close();
  process.stderr.write(`Wrote ${target}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
