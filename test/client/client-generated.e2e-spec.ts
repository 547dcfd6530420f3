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

describe("the client's ProviderOptions", () => {
  it('names every network that takes options, with its options component', () => {
    const { readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const source = readFileSync(
      join(__dirname, '..', '..', 'packages', 'client', 'src', 'provider-options.ts'),
      'utf8',
    );
    const listed = [...source.matchAll(/^\s+(\w+): (\w+Options);$/gm)].map((m) => [m[1], m[2]]);
    const { PROVIDER_OPTIONS_SCHEMAS } = jest.requireActual<typeof import('../../src/providers/provider.list')>(
      '../../src/providers/provider.list',
    );
    expect(listed).toEqual(PROVIDER_OPTIONS_SCHEMAS.map(({ id, name }) => [id, name]));
  });
});
