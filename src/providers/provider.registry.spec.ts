import { OutboundHttp } from '../common/http/outbound-http';
import { ProviderRegistry, UnknownProviderError, createProviderRegistry } from './provider.registry';

describe('ProviderRegistry', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());

  it('holds every supported adapter', () => {
    const registry = createProviderRegistry(http);
    expect(registry.ids()).toEqual(['mastodon', 'bluesky']);
    expect(registry.get('mastodon').id).toBe('mastodon');
    expect(registry.get('bluesky').id).toBe('bluesky');
    expect(registry.has('bluesky')).toBe(true);
    expect(registry.has('twitter')).toBe(false);
  });

  it('throws on unknown ids and duplicate registrations', () => {
    const registry = createProviderRegistry(http);
    expect(() => registry.get('twitter')).toThrow(UnknownProviderError);
    const mastodon = registry.get('mastodon');
    expect(() => new ProviderRegistry([mastodon, mastodon])).toThrow(/twice/);
  });
});
