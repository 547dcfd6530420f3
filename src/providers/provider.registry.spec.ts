import { OutboundHttp } from '../common/http/outbound-http';
import { providersConfig } from '../config/providers.config';
import { mastodonPlugin } from './mastodon/mastodon.provider';
import { defineProvider } from './provider-plugin';
import { PROVIDER_IDS, PROVIDER_PLUGINS } from './provider.list';
import { ProviderRegistry, UnknownProviderError, createProviderRegistry } from './provider.registry';

describe('ProviderRegistry', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());
  // What ProvidersModule resolves through Nest: the sandbox's switch (its store is not called here).
  const resolve = <T>(token: unknown): T => (token === providersConfig.KEY ? { sandboxEnabled: true } : {}) as T;
  const context = { http, resolve };

  it('holds every registered plugin, in list order', () => {
    const registry = createProviderRegistry(context);
    // Derived from the list, so registering a network does not mean editing this spec.
    expect(registry.ids()).toEqual(PROVIDER_PLUGINS.map((p) => p.id));
    expect(PROVIDER_IDS).toEqual(PROVIDER_PLUGINS.map((p) => p.id));
    expect(PROVIDER_IDS).toEqual(expect.arrayContaining(['sandbox', 'mastodon', 'bluesky', 'x']));
    expect(registry.get('sandbox').id).toBe('sandbox');
    expect(registry.get('mastodon').id).toBe('mastodon');
    expect(registry.get('bluesky').id).toBe('bluesky');
    expect(registry.plugin('bluesky').displayName).toBe('Bluesky');
    expect(registry.has('bluesky')).toBe(true);
    expect(registry.has('twitter')).toBe(false);
  });

  it('throws on unknown ids, duplicate registrations and mismatched adapters', () => {
    const registry = createProviderRegistry(context);
    expect(() => registry.get('twitter')).toThrow(UnknownProviderError);
    expect(() => registry.plugin('twitter')).toThrow(UnknownProviderError);
    expect(() => new ProviderRegistry([mastodonPlugin, mastodonPlugin], context)).toThrow(/twice/);
    const wrong = defineProvider({ ...mastodonPlugin, id: 'other' });
    expect(() => new ProviderRegistry([wrong], context)).toThrow(/built an adapter for mastodon/);
  });
});
