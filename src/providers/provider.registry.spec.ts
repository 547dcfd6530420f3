import { OutboundHttp } from '../common/http/outbound-http';
import { ConfigValidationError } from '../config/validate-env';
import { mastodonPlugin } from './mastodon/mastodon.provider';
import { defineProvider } from './provider-plugin';
import { PROVIDER_IDS, PROVIDER_PLUGINS } from './provider.list';
import { ProviderRegistry, UnknownProviderError, createProviderRegistry } from './provider.registry';
import { SandboxTimeline } from './sandbox/sandbox-timeline.port';
import { xPlugin } from './x/x.provider';

describe('ProviderRegistry', () => {
  const http = new OutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());
  // What ProvidersModule resolves through Nest: the sandbox's port (not called here).
  const resolve = <T>(token: unknown): T => (token === SandboxTimeline ? {} : undefined) as T;
  const context = { http, resolve };

  it('holds every registered plugin, in list order', () => {
    const registry = createProviderRegistry(context, {});
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
    const registry = createProviderRegistry(context, {});
    expect(() => registry.get('twitter')).toThrow(UnknownProviderError);
    expect(() => registry.plugin('twitter')).toThrow(UnknownProviderError);
    expect(() => new ProviderRegistry([mastodonPlugin, mastodonPlugin], context, {})).toThrow(/twice/);
    const wrong = defineProvider({ ...mastodonPlugin, id: 'other' });
    expect(() => new ProviderRegistry([wrong], context, {})).toThrow(/built an adapter for mastodon/);
  });

  it("reads each plugin's declared settings from the environment, with their defaults, and hands them to create", () => {
    const registry = createProviderRegistry(context, {
      X_CLIENT_ID: 'id',
      X_CLIENT_SECRET: 'secret',
      X_API_BASE_URL: 'http://127.0.0.1:9/',
      LINKEDIN_SCOPES: 'openid profile',
      SANDBOX_PROVIDER: 'false',
    });
    expect(registry.oauthClient('x')).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      authBaseUrl: null,
      apiBaseUrl: 'http://127.0.0.1:9',
      tokenBaseUrl: null,
      scopes: null,
    });
    expect(registry.oauthClient('linkedin')).toEqual(
      expect.objectContaining({ clientId: null, scopes: ['openid', 'profile'] }),
    );
    expect(registry.oauthClient('mastodon')).toBeNull();
    expect(registry.settings('linkedin').apiVersion).toBe('202610');
    expect(registry.settings('sandbox')).toEqual({ enabled: false });
    expect(registry.settings('threads')).toEqual(
      expect.objectContaining({ containerPollMs: 1000, containerWaitSeconds: 30 }),
    );
  });

  it('stops with every bad variable named, in the words of the other configuration', () => {
    let error: unknown;
    try {
      createProviderRegistry(context, {
        X_API_BASE_URL: 'not a url',
        LINKEDIN_API_VERSION: '2026',
        META_CONTAINER_POLL_MS: '5',
        SANDBOX_PROVIDER: 'maybe',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).problems).toEqual([
      expect.stringMatching(/^SANDBOX_PROVIDER="maybe": /),
      'X_API_BASE_URL="not a url": X_API_BASE_URL must be a URL address',
      'LINKEDIN_API_VERSION="2026": must be a version in YYYYMM format',
      'META_CONTAINER_POLL_MS="5": META_CONTAINER_POLL_MS must not be less than 10',
    ]);
  });

  it('refuses an OAuth plugin that declares no client id and secret', () => {
    const bare = defineProvider({ ...mastodonPlugin, connectKind: 'oauth', oauth: xPlugin.oauth });
    expect(() => new ProviderRegistry([bare], context, {})).toThrow(/declares no oauth spec or client id and secret/);
  });

  it("checks a target's options against the plugin's schema, naming each field in the API's words", () => {
    const registry = createProviderRegistry(context, {});
    expect(registry.checkOptions('sandbox', { visibility: 'unlisted', contentWarning: 'spoilers' })).toEqual([]);
    expect(registry.checkOptions('sandbox', {})).toEqual([]);
    expect(
      registry.checkOptions('sandbox', { visibility: 'friends', contentWarning: 'x'.repeat(201), pin: true }),
    ).toEqual([
      { field: 'pin', message: 'is not a known field' },
      { field: 'visibility', message: 'must be one of: public, unlisted, private' },
      { field: 'contentWarning', message: 'must be at most 200 characters long' },
    ]);
    expect(registry.checkOptions('sandbox', { contentWarning: 3 })).toEqual([
      { field: 'contentWarning', message: 'must be a string' },
    ]);
    // A network without an options schema takes none.
    expect(registry.checkOptions('mastodon', {})).toEqual([]);
    expect(registry.checkOptions('mastodon', { visibility: 'unlisted' })).toEqual([
      { field: 'visibility', message: 'is not a known field: Mastodon takes no options' },
    ]);
  });

  it('refuses an options schema that is open or does not compile', () => {
    const open = defineProvider({
      ...mastodonPlugin,
      optionsSchema: { type: 'object', additionalProperties: true, properties: {} } as never,
    });
    expect(() => new ProviderRegistry([open], context, {})).toThrow(/must be a closed object/);
    const typo = defineProvider({
      ...mastodonPlugin,
      optionsSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { a: { type: 'string', maxLenght: 3 } },
      },
    });
    expect(() => new ProviderRegistry([typo], context, {})).toThrow(/does not compile: .*maxLenght/);
  });
});
