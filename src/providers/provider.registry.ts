import type { ValidateFunction } from 'ajv';
import { CredentialsProblem, checkCredentials } from './credentials-schema';
import { compileOptionsSchema, optionsProblems } from './options-schema';
import type { ProviderContext, ProviderPlugin } from './provider-plugin';
import { OAuthClientSettings, oauthClientSettings, readProviderSettings } from './provider-settings';
import { PROVIDER_PLUGINS, ProviderId } from './provider.list';
import type { Problem, SocialProvider } from './social-provider.interface';

/** Asked for a provider id that is not registered. */
export class UnknownProviderError extends Error {
  constructor(readonly providerId: string) {
    super(`Unknown provider: ${providerId}`);
    this.name = 'UnknownProviderError';
  }
}

interface Registered {
  plugin: ProviderPlugin;
  adapter: SocialProvider;
  /** The values of the plugin's settings. */
  settings: Record<string, unknown>;
  /** The plugin's options schema, compiled once; null when it takes no options. */
  options: ValidateFunction | null;
}

/** What every plugin shares to build its adapter; each gets its own settings besides. */
export type SharedProviderContext = Omit<ProviderContext, 'settings'>;

/**
 * The registered plugins, their settings (read from the environment when the registry is built:
 * a bad value stops the start, naming the variable) and their adapters (built once), keyed by id.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, Registered>();

  constructor(plugins: readonly ProviderPlugin[], context: SharedProviderContext, env?: NodeJS.ProcessEnv) {
    const settings = readProviderSettings(plugins, env);
    for (const plugin of plugins) {
      if (this.providers.has(plugin.id)) throw new Error(`Provider ${plugin.id} is registered twice`);
      if (
        plugin.connectKind === 'oauth' &&
        !(plugin.oauth && plugin.settings?.clientId && plugin.settings.clientSecret)
      ) {
        throw new Error(
          `Provider ${plugin.id} connects by OAuth but declares no oauth spec or client id and secret settings`,
        );
      }
      const values = settings.get(plugin.id) ?? {};
      const adapter = plugin.create({ ...context, settings: values });
      if (adapter.id !== plugin.id) throw new Error(`Provider ${plugin.id} built an adapter for ${adapter.id}`);
      const options = plugin.optionsSchema ? compileOptionsSchema(plugin.id, plugin.optionsSchema) : null;
      this.providers.set(plugin.id, { plugin, adapter, settings: values, options });
    }
  }

  /** The adapter for `id`; throws UnknownProviderError when none is registered. */
  get(id: string): SocialProvider {
    return this.entry(id).adapter;
  }

  /** The plugin declaration for `id` (credentials schema, connect kind, display name, settings). */
  plugin(id: string): ProviderPlugin {
    return this.entry(id).plugin;
  }

  /** The values of the plugin's settings, as its `create` got them. */
  settings(id: string): Readonly<Record<string, unknown>> {
    return this.entry(id).settings;
  }

  /** An OAuth network's app registration on this server; null for networks that connect with credentials. */
  oauthClient(id: string): OAuthClientSettings | null {
    const { plugin, settings } = this.entry(id);
    return plugin.connectKind === 'oauth' ? oauthClientSettings(settings) : null;
  }

  /**
   * Checks credentials sent to connect against the plugin's schema, strictly (unknown fields are
   * problems): the same schema its adapter parses with.
   */
  checkCredentials(id: string, credentials: unknown): CredentialsProblem[] {
    return checkCredentials(this.plugin(id).credentials, credentials, true);
  }

  /**
   * Checks a target's `options` against the plugin's schema; fields are named inside the options
   * (`visibility`). A plugin without a schema takes no options: any field given is a problem.
   */
  checkOptions(id: string, options: Record<string, unknown>): Problem[] {
    const { plugin, options: validate } = this.entry(id);
    if (validate) return optionsProblems(validate, options);
    return Object.keys(options).map((field) => ({
      field,
      message: `is not a known field: ${plugin.displayName} takes no options`,
    }));
  }

  has(id: string): id is ProviderId {
    return this.providers.has(id);
  }

  /** Registered ids, in registration order. */
  ids(): ProviderId[] {
    return [...this.providers.keys()] as ProviderId[];
  }

  private entry(id: string): Registered {
    const entry = this.providers.get(id);
    if (!entry) throw new UnknownProviderError(id);
    return entry;
  }
}

/** The registry of every plugin in PROVIDER_PLUGINS, sharing one context. */
export function createProviderRegistry(context: SharedProviderContext, env?: NodeJS.ProcessEnv): ProviderRegistry {
  return new ProviderRegistry(PROVIDER_PLUGINS, context, env);
}
