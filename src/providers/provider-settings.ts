import { Setting, SettingsSpec, envExampleLines, readSettings, setting } from '../config/settings';
import type { ProviderPlugin } from './provider-plugin';

/**
 * The configuration plugins declare (`settings`): read and validated together when the registry is
 * built, handed to each plugin's `create`, and listed in `.env.example` (docs/adr/0031). Plugins
 * never read the environment themselves; `readSettings` (src/config/) does.
 */

/** An OAuth network's app registration on this server, as the oauth module reads it. */
export interface OAuthClientSettings {
  clientId: string | null;
  clientSecret: string | null;
  /** Overrides of the plugin's default hosts (null: the plugin's default). */
  authBaseUrl: string | null;
  apiBaseUrl: string | null;
  /** Override of the token endpoint host, for networks with a third host (null: the plugin's). */
  tokenBaseUrl: string | null;
  /** Override of the plugin's scopes (null: the plugin's). */
  scopes: string[] | null;
}

/** An OAuth network's app settings: client id and secret, and the overrides the network offers. */
export type OAuthAppSettingsSpec = SettingsSpec & {
  clientId: Setting<string | null>;
  clientSecret: Setting<string | null>;
};

/** A setting's comment, or its variable and comment when the variable is not the usual name. */
type Declared = string | { env: string; description: string };

/**
 * The settings of an OAuth network's app registration. Variables are `<PREFIX>_CLIENT_ID`,
 * `<PREFIX>_CLIENT_SECRET`, `<PREFIX>_AUTH_BASE_URL`, `<PREFIX>_API_BASE_URL`,
 * `<PREFIX>_TOKEN_BASE_URL` and `<PREFIX>_SCOPES` unless declared otherwise (TikTok's client id is
 * `TIKTOK_CLIENT_KEY`); host overrides and scopes exist only where declared. Without client id and
 * secret the network is listed `enabled: false`.
 */
export function oauthAppSettings(
  prefix: string,
  o: {
    clientId: Declared;
    clientSecret?: Declared;
    authBaseUrl?: Declared;
    apiBaseUrl?: Declared;
    tokenBaseUrl?: Declared;
    /** Scopes asked instead of the plugin's, space-separated. */
    scopes?: Declared;
  },
): OAuthAppSettingsSpec {
  const named = (suffix: string, declared: Declared) =>
    typeof declared === 'string' ? { env: `${prefix}_${suffix}`, description: declared } : declared;
  const text = (suffix: string, declared: Declared = '') => {
    const { env, description } = named(suffix, declared);
    return setting.text(env, description);
  };
  const url = (suffix: string, declared: Declared) => {
    const { env, description } = named(suffix, declared);
    return setting.url(env, description);
  };
  const spec: Record<string, Setting<unknown>> = {
    clientId: text('CLIENT_ID', o.clientId),
    clientSecret: text('CLIENT_SECRET', o.clientSecret),
  };
  if (o.authBaseUrl !== undefined) spec.authBaseUrl = url('AUTH_BASE_URL', o.authBaseUrl);
  if (o.apiBaseUrl !== undefined) spec.apiBaseUrl = url('API_BASE_URL', o.apiBaseUrl);
  if (o.tokenBaseUrl !== undefined) spec.tokenBaseUrl = url('TOKEN_BASE_URL', o.tokenBaseUrl);
  if (o.scopes !== undefined) {
    const { env, description } = named('SCOPES', o.scopes);
    spec.scopes = setting.list(env, {
      pattern: /^[A-Za-z0-9_.:/-]+( [A-Za-z0-9_.:/-]+)*$/,
      message: 'must be scope names separated by single spaces',
      separator: ' ',
      description,
    });
  }
  return spec as OAuthAppSettingsSpec;
}

/** Every plugin's settings, validated together (a ConfigValidationError names every bad variable), by plugin id. */
export function readProviderSettings(
  plugins: readonly ProviderPlugin[],
  env?: NodeJS.ProcessEnv,
): Map<string, Record<string, unknown>> {
  const values = readSettings(
    plugins.flatMap((p) => Object.values(p.settings ?? {})),
    env,
  );
  return new Map(
    plugins.map((p) => [
      p.id,
      Object.fromEntries(Object.entries(p.settings ?? {}).map(([key, s]) => [key, values.get(s.env)])),
    ]),
  );
}

/** The app settings of an OAuth plugin's values (null where the plugin offers no such override). */
export function oauthClientSettings(values: Record<string, unknown>): OAuthClientSettings {
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : null);
  return {
    clientId: text('clientId'),
    clientSecret: text('clientSecret'),
    authBaseUrl: text('authBaseUrl'),
    apiBaseUrl: text('apiBaseUrl'),
    tokenBaseUrl: text('tokenBaseUrl'),
    scopes: Array.isArray(values.scopes) ? (values.scopes as string[]) : null,
  };
}

/** First and last line of the part of `.env.example` generated from the plugins. */
export const ENV_EXAMPLE_BEGIN =
  '# --- networks: generated from the provider plugins by `npm run env:example` (edit the plugins, not these lines) ---';
export const ENV_EXAMPLE_END = '# --- end of networks ---';

/**
 * The networks' lines of `.env.example`: each plugin's settings under its name, in registration
 * order; a variable several plugins share is listed under the first.
 */
export function providerEnvExample(plugins: readonly ProviderPlugin[]): string[] {
  const lines = [ENV_EXAMPLE_BEGIN];
  const listed = new Set<string>();
  for (const plugin of plugins) {
    const settings = Object.values(plugin.settings ?? {}).filter((s) => !listed.has(s.env));
    if (settings.length === 0) continue;
    lines.push(`# ${plugin.displayName}`);
    for (const s of settings) {
      listed.add(s.env);
      lines.push(...envExampleLines(s));
    }
  }
  lines.push(ENV_EXAMPLE_END);
  return lines;
}

/**
 * `.env.example` with its networks part rewritten from the plugins (the rest is kept as written).
 * Throws when the file lacks the two marker lines.
 */
export function withProviderEnvExample(file: string, plugins: readonly ProviderPlugin[]): string {
  const lines = file.split('\n');
  const begin = lines.indexOf(ENV_EXAMPLE_BEGIN);
  const end = lines.indexOf(ENV_EXAMPLE_END);
  if (begin < 0 || end < begin)
    throw new Error(`.env.example lacks the lines ${ENV_EXAMPLE_BEGIN} and ${ENV_EXAMPLE_END}`);
  return [...lines.slice(0, begin), ...providerEnvExample(plugins), ...lines.slice(end + 1)].join('\n');
}
