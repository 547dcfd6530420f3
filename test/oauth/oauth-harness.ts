import type { AppRole } from '../../src/app-role';
import { ChannelsService } from '../../src/channels/channels.service';
import { makePng } from '../factories/png.factory';
import { MediaClient, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { freePort, TestApp } from '../support/test-app';

/** PUBLIC_BASE_URL unless `reachable`: a name that resolves nowhere. */
export const PUBLIC_BASE_URL = 'http://app.test';

/** The origin a connect request's `redirectUri` may point to in these tests. */
export const CLIENT_ORIGIN = 'http://client.test';

/** A fake OAuth network: its hosts for the app's env, and a user who consents on its authorization page. */
export interface ConsentingFake {
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
  appEnv(): Record<string, string>;
  /** Follows the authorization URL as a consenting user; returns our callback URL with code and state. */
  consent(authorizationUrl: string): Promise<string>;
}

export interface OAuthAppOptions {
  /** Extra env for the app. */
  env?: Record<string, string>;
  /**
   * PUBLIC_BASE_URL is the app's own loopback address (networks that fetch media from our signed URLs);
   * otherwise a name that resolves nowhere, so nothing can reach the app through it by mistake.
   */
  reachable?: boolean;
  /** The app's role; default `all` (API and workers in the test's process). */
  role?: AppRole;
}

/** The path and query of a URL, to request it from the test app (callback URLs name PUBLIC_BASE_URL). */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The browser arriving at our callback: redirects are not followed (they leave the test app). */
export async function browse(t: TestApp, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const count = async (t: TestApp, table: 'channels' | 'oauth_connections'): Promise<number> =>
  Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number);

/**
 * The app and one workspace for the OAuth specs of `provider`, started in `beforeAll` and stopped in
 * `afterAll` of the calling `describe`, with the steps every such spec takes: start the flow, consent,
 * follow the callback, choose accounts, publish and wait.
 */
export function useOAuthApp(provider: string, fake: ConsentingFake, options: OAuthAppOptions = {}) {
  const media = tempMediaDir();
  let app: TestApp | undefined;
  let key = '';
  let workspaceId = '';
  let publicBaseUrl = PUBLIC_BASE_URL;

  beforeAll(async () => {
    await fake.start();
    const port = options.reachable ? await freePort() : undefined;
    if (port) publicBaseUrl = `http://127.0.0.1:${port}`;
    app = await TestApp.start({
      port,
      role: options.role,
      env: {
        ...FAST_PUBLISHING_ENV,
        ...fake.appEnv(),
        MEDIA_DIR: media.dir,
        PUBLIC_BASE_URL: publicBaseUrl,
        OAUTH_REDIRECT_ORIGINS: CLIENT_ORIGIN,
        PUBLISH_CONCURRENCY: '50',
        ANALYTICS_REFRESH_COOLDOWN_SECONDS: '1',
        ...options.env,
      },
    });
    ({ key, workspaceId } = await app.createWorkspace());
  });
  afterAll(async () => {
    await app?.close();
    await fake.stop();
    media.cleanup();
  });

  const harness = {
    get t(): TestApp {
      if (!app) throw new Error('the app starts in beforeAll');
      return app;
    },
    get key() {
      return key;
    },
    get workspaceId() {
      return workspaceId;
    },
    get publicBaseUrl() {
      return publicBaseUrl;
    },
    mediaDir: media.dir,
    /** POST /api/channels/connect/{provider}. */
    start: (body: Record<string, unknown> = {}, k = key) =>
      harness.t.request('POST', `/api/channels/connect/${provider}`, { key: k, body }),
    channelCount: () => count(harness.t, 'channels'),
    connectionCount: () => count(harness.t, 'oauth_connections'),
    getPost: async (id: string) => (await harness.t.request('GET', `/api/posts/${id}`, { key })).body,
    publishNow: async (channelId: string, content: string, mediaIds: string[] = [], extra = {}) => {
      const created = await harness.t.request('POST', '/api/posts', {
        key,
        body: { content, channelIds: [channelId], mediaIds, publishNow: true, ...extra },
      });
      expect(created.status).toBe(201);
      return created.body.id as string;
    },
    settled: (id: string, timeoutMs = 30_000) =>
      waitFor(
        () => harness.getPost(id),
        (p) => p.status === 'published' || p.status === 'failed',
        timeoutMs,
      ),
    /** Makes the stored access token look expired, as time passing would (through the owner's service). */
    expireStoredToken: (channelId: string) => harness.setStoredExpiry(channelId, new Date(Date.now() - 1000)),
    /** Moves the stored access token's expiry, as time passing would (through the owner's service). */
    setStoredExpiry: async (channelId: string, expiresAt: Date) => {
      await harness.t.app.get(ChannelsService).refreshCredentials(channelId, async (current) => ({
        kind: 'refreshed',
        credentials: { ...current, expiresAt: expiresAt.toISOString() },
      }));
    },
    /** The channel's stored credentials, as the owner's service opens them. */
    storedCredentials: async (channelId: string): Promise<Record<string, unknown>> => {
      const channels = harness.t.app.get(ChannelsService);
      const channel = (await channels.findByIds([channelId])).get(channelId);
      return (channel && channels.credentialsOf(channel)) ?? {};
    },
    /** Uploads a PNG of this size through the chunked flow; returns the media id. */
    uploadPng: async (width = 40, height = 30): Promise<string> => {
      const png = makePng(width, height);
      const client = new MediaClient(harness.t, key);
      const init = await client.initialize({ filename: 'image.png', mimeType: 'image/png', size: png.length });
      expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      return init.body.id as string;
    },
    /** Asks for a post's figures now and waits until they are collected. */
    analytics: async (postId: string) => {
      const read = async () => (await harness.t.request('GET', `/api/analytics/posts/${postId}`, { key })).body;
      const before = (await read())?.collectedAt ?? null;
      const refresh = await harness.t.request('POST', `/api/analytics/posts/${postId}/refresh`, { key, body: {} });
      expect(refresh.status).toBe(202);
      return waitFor(read, (a) => a.collectedAt !== null && a.collectedAt !== before);
    },
    /** The workspace's events of one type, newest first. */
    events: async (type: string): Promise<Array<{ data: Record<string, unknown> }>> =>
      (await harness.t.request('GET', `/api/events?type=${type}`, { key })).body.data,
    /** Runs the dance up to the callback's redirect and returns its query (connectionId, channelId or error). */
    authorize: async (k = key): Promise<URLSearchParams> => {
      const res = await harness.start({ redirectUri: `${CLIENT_ORIGIN}/done` }, k);
      expect(res.status).toBe(201);
      const callback = await fake.consent(res.body.authorizationUrl);
      const done = await browse(harness.t, pathOf(callback));
      expect(done.status).toBe(302);
      const location = new URL(done.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(`${CLIENT_ORIGIN}/done`);
      return location.searchParams;
    },
    /** The whole dance for a network with one account per authorization; returns the channel id. */
    connect: async (k = key): Promise<string> => (await harness.authorize(k)).get('channelId')!,
    getConnection: (id: string, k = key) => harness.t.request('GET', `/api/oauth/connections/${id}`, { key: k }),
    choose: (id: string, targetIds: string[], k = key) =>
      harness.t.request('POST', `/api/oauth/connections/${id}/channels`, { key: k, body: { targetIds } }),
    /** The whole dance for a network with several accounts, choosing `targets`; returns the channel ids in order. */
    connectTargets: async (targets: string[], k = key): Promise<string[]> => {
      const connectionId = (await harness.authorize(k)).get('connectionId')!;
      const res = await harness.choose(connectionId, targets, k);
      expect(res.status).toBe(201);
      return res.body.data.map((c: { id: string }) => c.id);
    },
  };
  return harness;
}
