import { CredentialsProblem, checkCredentials } from './credentials-schema';
import type { ProviderContext, ProviderPlugin } from './provider-plugin';
import { PROVIDER_PLUGINS, ProviderId } from './provider.list';
import type { SocialProvider } from './social-provider.interface';

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
}

/** The registered plugins and their adapters (built once), keyed by id. */
export class ProviderRegistry {
  private readonly providers = new Map<string, Registered>();

  constructor(plugins: readonly ProviderPlugin[], context: ProviderContext) {
    for (const plugin of plugins) {
      if (this.providers.has(plugin.id)) throw new Error(`Provider ${plugin.id} is registered twice`);
      const adapter = plugin.create(context);
      if (adapter.id !== plugin.id) throw new Error(`Provider ${plugin.id} built an adapter for ${adapter.id}`);
      this.providers.set(plugin.id, { plugin, adapter });
    }
  }

  /** The adapter for `id`; throws UnknownProviderError when none is registered. */
  get(id: string): SocialProvider {
    return this.entry(id).adapter;
  }

  /** The plugin declaration for `id` (credentials schema, connect kind, display name). */
  plugin(id: string): ProviderPlugin {
    return this.entry(id).plugin;
  }

  /**
   * Checks credentials sent to connect against the plugin's schema, strictly (unknown fields are
   * problems): the same schema its adapter parses with.
   */
  checkCredentials(id: string, credentials: unknown): CredentialsProblem[] {
    return checkCredentials(this.plugin(id).credentials, credentials, true);
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
export function createProviderRegistry(context: ProviderContext): ProviderRegistry {
  return new ProviderRegistry(PROVIDER_PLUGINS, context);
}
