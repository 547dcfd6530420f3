import type { OutboundHttp } from '../common/http/outbound-http';
import { BlueskyProvider, BlueskyProviderOptions } from './bluesky/bluesky.provider';
import { MastodonProvider, MastodonProviderOptions } from './mastodon/mastodon.provider';
import { PROVIDER_IDS, ProviderId, SocialProvider } from './social-provider.interface';

/** Asked for a provider id that is not registered. */
export class UnknownProviderError extends Error {
  constructor(readonly providerId: string) {
    super(`Unknown provider: ${providerId}`);
    this.name = 'UnknownProviderError';
  }
}

/** The provider adapters, keyed by id. */
export class ProviderRegistry {
  private readonly providers = new Map<ProviderId, SocialProvider>();

  constructor(providers: readonly SocialProvider[]) {
    for (const provider of providers) {
      if (this.providers.has(provider.id)) throw new Error(`Provider ${provider.id} is registered twice`);
      this.providers.set(provider.id, provider);
    }
  }

  /** The adapter for `id`; throws UnknownProviderError when none is registered. */
  get(id: string): SocialProvider {
    const provider = this.providers.get(id as ProviderId);
    if (!provider) throw new UnknownProviderError(id);
    return provider;
  }

  has(id: string): id is ProviderId {
    return this.providers.has(id as ProviderId);
  }

  /** Registered ids, in PROVIDER_IDS order. */
  ids(): ProviderId[] {
    return PROVIDER_IDS.filter((id) => this.providers.has(id));
  }
}

export interface ProviderRegistryOptions {
  mastodon?: MastodonProviderOptions;
  bluesky?: BlueskyProviderOptions;
}

/** The registry with every supported adapter sharing one OutboundHttp. */
export function createProviderRegistry(http: OutboundHttp, options: ProviderRegistryOptions = {}): ProviderRegistry {
  return new ProviderRegistry([
    new MastodonProvider(http, options.mastodon),
    new BlueskyProvider(http, options.bluesky),
  ]);
}
