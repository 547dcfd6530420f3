import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setting } from '../../src/config/settings';
import type { ProviderPlugin } from '../../src/providers/provider-plugin';
import { PROVIDER_PLUGINS } from '../../src/providers/provider.list';
import {
  ENV_EXAMPLE_BEGIN,
  ENV_EXAMPLE_END,
  providerEnvExample,
  withProviderEnvExample,
} from '../../src/providers/provider-settings';

/**
 * `.env.example` lists every variable with its default. Its networks part is generated from what the
 * provider plugins declare (`npm run env:example`), so a network's settings are written once, in its
 * folder; this spec fails when the committed file is out of date.
 */
describe('committed .env.example', () => {
  const file = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');

  it('lists the networks as the plugins declare them (run `npm run env:example` after changing a plugin)', () => {
    expect(file).toBe(withProviderEnvExample(file, PROVIDER_PLUGINS));
  });

  it('lists every variable a plugin declares once, with the variables of the OAuth apps', () => {
    const generated = providerEnvExample(PROVIDER_PLUGINS);
    const names = generated.map((l) => /^([A-Z0-9_]+)=/.exec(l)?.[1]).filter(Boolean);
    expect(new Set(names).size).toBe(names.length);
    const declared = new Set(PROVIDER_PLUGINS.flatMap((p) => Object.values(p.settings ?? {}).map((s) => s.env)));
    expect(new Set(names)).toEqual(declared);
    // Names existing deployments' .env files use.
    expect(names).toEqual(
      expect.arrayContaining([
        'SANDBOX_PROVIDER',
        'X_CLIENT_ID',
        'X_CLIENT_SECRET',
        'X_AUTH_BASE_URL',
        'X_API_BASE_URL',
        'LINKEDIN_SCOPES',
        'LINKEDIN_API_VERSION',
        'INSTAGRAM_TOKEN_BASE_URL',
        'META_CONTAINER_POLL_MS',
        'META_CONTAINER_WAIT_SECONDS',
        'FACEBOOK_API_BASE_URL',
      ]),
    );
    expect(generated[0]).toBe(ENV_EXAMPLE_BEGIN);
    expect(generated.at(-1)).toBe(ENV_EXAMPLE_END);
  });

  it('a plugin that declares a new variable makes the committed file out of date', () => {
    const [first, ...rest]: ProviderPlugin[] = [...PROVIDER_PLUGINS];
    const added = setting.int('EXAMPLE_NEW_SETTING', { default: 1, description: 'a new setting' });
    const changed: ProviderPlugin = { ...first, settings: { ...first.settings, added } };
    expect(withProviderEnvExample(file, [changed, ...rest])).not.toBe(file);
    expect(withProviderEnvExample(file, [changed, ...rest])).toContain('\nEXAMPLE_NEW_SETTING=1 ');
  });
});
