import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** CI's staleness check of the client: the committed generated code is what the generator makes from docs/openapi.json. */
describe('the client package', () => {
  it('has generated code matching docs/openapi.json (run `npm run client:generate` after `npm run openapi`)', async () => {
    const script = join(__dirname, '..', '..', 'packages', 'client', 'scripts', 'check-generated.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 });
    expect(stdout).toMatch(/is current \(\d+ files\)/);
  });
});
