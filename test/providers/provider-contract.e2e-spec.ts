import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { OutboundHttp } from '../../src/common/http/outbound-http';
import { ContentRejectedError, TransientProviderError } from '../../src/providers/provider.errors';
import { PROVIDER_PLUGINS } from '../../src/providers/provider.list';
import { ProviderRegistry } from '../../src/providers/provider.registry';
import type { ProviderPlugin } from '../../src/providers/provider-plugin';
import type {
  ConnectedAccount,
  PublishInput,
  PublishMedia,
  SocialProvider,
} from '../../src/providers/social-provider.interface';
import { makePng } from '../factories/png.factory';
import type { ProviderContractFake } from '../fakes/provider-contract';
import { MediaClient, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { FileServer } from '../support/file-server';
import { TestApp, freePort } from '../support/test-app';
import { TINY_JPEG, TINY_PNG, mediaFrom } from './media.fixture';

/**
 * The shared provider contract: every registered plugin, against its fake (`test/fakes/<id>.fake.ts`
 * exporting `contractFake`), through the real app and through the adapter alone. A provider
 * registered in provider.list.ts without a fake fails here, unless it is listed below.
 */

/**
 * Networks that live inside the service: there is no server to fake, so nothing can make the next
 * call answer 503 or set engagement figures. Each drives the same cases (schema, publish with and
 * without media, transient and permanent failures, revocation, idempotency, metrics) through its own
 * switches in the spec named here.
 */
const IN_SERVICE_NETWORKS: Record<string, string> = { sandbox: 'sandbox.provider.e2e-spec.ts' };
const FAKED_PLUGINS = PROVIDER_PLUGINS.filter((p) => !(p.id in IN_SERVICE_NETWORKS));

it('every plugin without a fake server has its own contract spec', () => {
  for (const [id, spec] of Object.entries(IN_SERVICE_NETWORKS)) {
    expect(PROVIDER_PLUGINS.map((p) => p.id)).toContain(id);
    expect(existsSync(join(__dirname, spec))).toBe(true);
  }
});

/**
 * Networks whose fake is still written from our own reading of their documentation: it checks no
 * request against the network's machine-readable description (docs/networks.md says which source
 * grounds each figure). Remove a network from here when its fake calls checkAgainst.
 */

const DESCRIPTIONS_PENDING: readonly string[] = [];

/** Sends one text frame to a WebSocket fake and resolves with its first answer, parsed (null when none in 5 s). */
function exchangeMessage(url: string, message: string): Promise<unknown> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (value: unknown) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), 5000);
    ws.on('open', () => ws.send(message));
    ws.on('message', (data: Buffer) => done(JSON.parse(data.toString()) as unknown));
    ws.on('error', () => done(null));
  });
}

function loadContractFake(id: string): ProviderContractFake {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(`../fakes/${id}.fake`) as { contractFake?: () => ProviderContractFake };
  if (typeof mod.contractFake !== 'function') throw new Error(`test/fakes/${id}.fake.ts exports no contractFake()`);
  return mod.contractFake();
}

/** The path and query of a URL, to request it from the test app (the callback URL names PUBLIC_BASE_URL). */
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('provider contract', () => {
  let t: TestApp;
  const media = tempMediaDir();
  const fakes = new Map(FAKED_PLUGINS.map((p) => [p.id as string, loadContractFake(p.id)]));
  const started = new Map<string, Record<string, unknown>>();
  // Where the adapter-alone image is served, for networks that download media from a URL.
  const files = new FileServer();
  /** The video fixture for networks that publish videos only, served at a public URL. */
  const VIDEO = readFileSync(join(__dirname, '../fixtures/video/h264-aac-faststart.mp4'));
  const contractVideo = () =>
    mediaFrom(VIDEO, {
      id: 'video-1',
      mimeType: 'video/mp4',
      filename: 'contract.mp4',
      width: 320,
      height: 240,
      publicUrl: () => Promise.resolve(`${files.base}/contract.mp4`),
    });
  /** A 1x1 PNG whose public URL serves it, and whose JPEG copy is served too. */
  const contractImage = () => {
    const jpeg = mediaFrom(TINY_JPEG, {
      mimeType: 'image/jpeg',
      filename: 'pixel.jpeg',
      publicUrl: () => Promise.resolve(`${files.base}/pixel.jpeg`),
    });
    const png: PublishMedia = mediaFrom(TINY_PNG, {
      publicUrl: () => Promise.resolve(`${files.base}/pixel.png`),
      as: async (type) => (type === 'image/jpeg' ? jpeg : png),
    });
    return png;
  };

  // Fakes first: OAuth networks give the app its client credentials and hosts through the environment.
  beforeAll(async () => {
    // Video processing read by delayed polls four times a second (the publisher's shortest wait), on
    // Meta's networks and on those that give no hint of their own (X's check_after_secs is followed).
    const env: Record<string, string> = {
      ...FAST_PUBLISHING_ENV,
      MEDIA_DIR: media.dir,
      META_VIDEO_POLL_MS: '250',
      MASTODON_VIDEO_POLL_MS: '250',
      LINKEDIN_VIDEO_POLL_MS: '250',
      PINTEREST_VIDEO_POLL_MS: '250',
      BLUESKY_VIDEO_POLL_MS: '250',
      X_VIDEO_POLL_MS: '250',
      REDDIT_MEDIA_POLL_MS: '250',
    };
    for (const [id, fake] of fakes) {
      started.set(id, await fake.start());
      Object.assign(env, fake.appEnv?.() ?? {});
    }
    await files.start();
    files.put('/pixel.png', { type: 'image/png', body: TINY_PNG });
    files.put('/pixel.jpeg', { type: 'image/jpeg', body: TINY_JPEG });
    files.put('/contract.mp4', { type: 'video/mp4', body: VIDEO });
    // Networks that download media (Meta's) fetch our signed URLs: the public address is the real one.
    const port = await freePort();
    t = await TestApp.start({ port, env: { ...env, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await t?.close();
    await files.stop();
    for (const fake of fakes.values()) await fake.stop();
    media.cleanup();
  });

  it(`checks the requests of every fake against its network's description, except: ${DESCRIPTIONS_PENDING.join(', ') || 'none'}`, () => {
    const described = [...fakes].filter(([, fake]) => fake.described).map(([id]) => id);
    const rest = [...fakes.keys()].filter((id) => !described.includes(id));
    // A network that gained a description leaves the list; a network without one stays on it.
    expect(rest.sort()).toEqual([...DESCRIPTIONS_PENDING].sort());
  });

  describe.each(FAKED_PLUGINS.map((p): [string, ProviderPlugin] => [p.id, p]))('%s', (id, plugin) => {
    const fake = fakes.get(id)!;
    let credentials: Record<string, unknown>;
    let key: string;
    let channelId: string;
    let http: OutboundHttp;
    let adapter: SocialProvider;

    beforeAll(async () => {
      credentials = started.get(id)!;
      key = (await t.createWorkspace()).key;
      http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
      adapter = plugin.create({
        http,
        settings: t.app.get(ProviderRegistry).settings(id),
        resolve: (token) => t.app.get(token, { strict: false }),
      });
    });
    afterAll(() => http?.close());

    /** An image of this workspace, for networks that publish nothing without one. */
    let defaultImage: string | undefined;
    const uploadPng = async (name: string) => {
      const png = makePng(32, 24);
      const client = new MediaClient(t, key);
      const init = await client.initialize({ filename: name, mimeType: 'image/png', size: png.length });
      expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      return init.body.id as string;
    };
    /** A video of this workspace, for networks that publish videos only. */
    let defaultVideo: string | undefined;
    const uploadVideo = async () => {
      const client = new MediaClient(t, key);
      const init = await client.initialize({ filename: 'contract.mp4', mimeType: 'video/mp4', size: VIDEO.length });
      expect((await client.chunk(init.body.id, 0, VIDEO)).status).toBe(200);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      return init.body.id as string;
    };
    const textMedia = async (): Promise<string[]> => {
      if (fake.requiresVideo) return [(defaultVideo ??= await uploadVideo())];
      return fake.requiresMedia ? [(defaultImage ??= await uploadPng('default.png'))] : [];
    };
    /** The network's own settings, for networks that require some. */
    const targets = () => (fake.publishOptions ? [{ channelId, options: fake.publishOptions }] : undefined);
    const connect = (body: Record<string, unknown>) =>
      t.request('POST', '/api/channels', { key, body: { provider: id, credentials: body } });
    const getPost = async (postId: string) => (await t.request('GET', `/api/posts/${postId}`, { key })).body;
    const publishNow = async (content: string, mediaIds?: string[]) => {
      mediaIds ??= await textMedia();
      const created = await t.request('POST', '/api/posts', {
        key,
        body: { content, channelIds: [channelId], targets: targets(), mediaIds, publishNow: true },
      });
      expect(created.status).toBe(201);
      return waitFor(
        () => getPost(created.body.id),
        (p) => p.status === 'published' || p.status === 'failed',
      );
    };
    const postsWithText = (text: string) => fake.posts().filter((p) => p.text.includes(text));

    it('connects through the API; the schema refuses unknown fields; wrong secrets are refused', async () => {
      if (plugin.connectKind === 'oauth') {
        // Credentials are refused; the authorization-code flow connects the account.
        expect((await connect(credentials)).status).toBe(400);
        await expect(adapter.connect(fake.wrongCredentials())).rejects.toThrow();
        const start = await t.request('POST', `/api/channels/connect/${id}`, { key, body: {} });
        expect(start.status).toBe(201);
        const callback = await fake.consent!(start.body.authorizationUrl);
        const done = await t.request('GET', pathOf(callback));
        expect(done.status).toBe(201);
        const list = await t.request('GET', `/api/channels?provider=${id}`, { key });
        expect(list.body.data).toHaveLength(1);
        expect(list.body.data[0]).toEqual(expect.objectContaining({ provider: id, status: 'active' }));
        expect(list.body.data[0].limits.maxCharacters).toBeGreaterThan(0);
        expect(done.text).toContain(list.body.data[0].id);
        channelId = list.body.data[0].id;
        return;
      }
      const unknown = await connect({ ...credentials, extra: 'x' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toContainEqual({ field: 'credentials.extra', message: 'is not a known field' });

      const wrong = await connect(fake.wrongCredentials());
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('VALIDATION_ERROR');

      const res = await connect(credentials);
      expect(res.status).toBe(201);
      expect(res.body).toEqual(expect.objectContaining({ provider: id, status: 'active' }));
      expect(res.body.limits.maxCharacters).toBeGreaterThan(0);
      expect(res.body).not.toHaveProperty('credentials');
      channelId = res.body.id;
    });

    it('publishes a text post through the pipeline', async () => {
      const post = await publishNow(`contract text ${id}`);
      expect(post.status).toBe('published');
      const onNetwork = postsWithText(`contract text ${id}`);
      expect(onNetwork).toHaveLength(1);
      expect(onNetwork[0].platformPostId).toBe(post.targets[0].platformPostId);
      expect(onNetwork[0].mediaCount).toBe(fake.requiresMedia || fake.requiresVideo ? 1 : 0);
    });

    it('publishes a post with an image through the pipeline, with its alt text where the network takes one', async () => {
      const png = makePng(32, 24);
      const client = new MediaClient(t, key);
      const altText = `A gradient, 32 by 24 pixels, for ${id} (ünïcode ✓)`;
      const init = await client.initialize({ filename: 'c.png', mimeType: 'image/png', size: png.length, altText });
      expect(init.body.altText).toBe(altText);
      expect((await client.chunk(init.body.id, 0, png)).status).toBe(200);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      if (fake.requiresVideo) {
        // A network of videos refuses an image alone before anything is sent.
        const refused = await t.request('POST', '/api/posts', {
          key,
          body: {
            content: `contract image ${id}`,
            channelIds: [channelId],
            targets: targets(),
            mediaIds: [init.body.id],
            publishNow: true,
          },
        });
        expect(refused.status).toBe(400);
        expect(refused.body.details).toContainEqual({ field: 'mediaIds', message: expect.any(String) });
        expect(postsWithText(`contract image ${id}`)).toHaveLength(0);
        return;
      }
      const post = await publishNow(`contract image ${id}`, [init.body.id]);
      expect(post.status).toBe('published');
      const [onNetwork] = postsWithText(`contract image ${id}`);
      expect(onNetwork.mediaCount).toBe(1);
      // A network declaring alt text must have received it (its fake reports ContractPost.mediaAltTexts).
      if (plugin.capabilities.altText) expect(onNetwork.mediaAltTexts).toEqual([altText]);
      else expect(onNetwork.mediaAltTexts).toBeUndefined();
    });

    it('publishes a video where the channel says limits.video (processing polled), and refuses it where null', async () => {
      const limits = (await t.request('GET', `/api/channels/${channelId}`, { key })).body.limits;
      // 4 s, H.264/AAC MP4, index first: within every network's video limits (LinkedIn takes 3 s at least),
      // unless the fake names a clip of its own (a vertical one for Reels).
      const clip = readFileSync(join(__dirname, '../fixtures/video', fake.videoFixture ?? 'h264-aac-4s.mp4'));
      const client = new MediaClient(t, key);
      const init = await client.initialize({ filename: 'clip.mp4', mimeType: 'video/mp4', size: clip.length });
      expect((await client.chunk(init.body.id, 0, clip)).status).toBe(200);
      expect((await client.finalize(init.body.id)).body.status).toBe('ready');
      if (!limits.video) {
        const refused = await t.request('POST', '/api/posts/validate', {
          key,
          body: {
            content: `contract video ${id}`,
            channelIds: [channelId],
            targets: targets(),
            mediaIds: [init.body.id],
          },
        });
        expect(refused.body.problems).toContainEqual(
          expect.objectContaining({ field: 'mediaIds[0]', message: expect.stringMatching(/does not take video/) }),
        );
        return;
      }
      const post = await publishNow(`contract video ${id}`, [init.body.id]);
      expect(post.status).toBe('published');
      const [onNetwork] = postsWithText(`contract video ${id}`);
      expect(onNetwork.mediaCount).toBe(1);
      expect(post.targets[0].platformPostId).toBe(onNetwork.platformPostId);
    }, 60_000);

    it('retries a transient failure and publishes exactly once', async () => {
      fake.failNext(1, 503, fake.publishRoute);
      const post = await publishNow(`contract transient ${id}`);
      expect(post.status).toBe('published');
      expect(post.targets[0].attempts).toBeGreaterThanOrEqual(2);
      expect(postsWithText(`contract transient ${id}`)).toHaveLength(1);
    });

    it('publishes a thread as a chain of replies where the network takes threads, and refuses it elsewhere', async () => {
      const text = (n: number) => `contract thread ${id} part ${n}`;
      const created = await t.request('POST', '/api/posts', {
        key,
        body: {
          content: text(1),
          thread: [{ content: text(2) }, { content: text(3) }],
          mediaIds: await textMedia(),
          channelIds: [channelId],
          targets: targets(),
          publishNow: true,
        },
      });
      if (!plugin.defaultLimits.threads) {
        expect(created.status).toBe(400);
        expect(created.body.details).toEqual([{ field: 'thread', message: expect.any(String) }]);
        return;
      }
      expect(created.status).toBe(201);
      const post = await waitFor(
        () => getPost(created.body.id),
        (p) => p.status === 'published' || p.status === 'failed',
      );
      expect(post.status).toBe('published');
      const [one, two, three] = [1, 2, 3].map((n) => postsWithText(text(n)));
      expect([one.length, two.length, three.length]).toEqual([1, 1, 1]);
      expect([one[0].inReplyTo, two[0].inReplyTo, three[0].inReplyTo]).toEqual([
        null,
        one[0].platformPostId,
        two[0].platformPostId,
      ]);
      expect(post.targets[0].parts.map((p: { platformPostId: string }) => p.platformPostId)).toEqual(
        [one, two, three].map((p) => p[0].platformPostId),
      );
    });

    it('fails the target without retrying when the network refuses the post', async () => {
      fake.failNext(1, fake.rejectStatus, fake.publishRoute);
      const post = await publishNow(`contract rejected ${id}`);
      expect(post.status).toBe('failed');
      expect(post.targets[0].error).toEqual({ code: 'CONTENT_REJECTED', message: expect.any(String) });
      expect(postsWithText(`contract rejected ${id}`)).toHaveLength(0);
    });

    describe('the adapter alone', () => {
      let account: ConnectedAccount;
      // The publish checkpoints the publisher keeps in Postgres, kept here per idempotency key.
      const checkpoints = new Map<string, Record<string, unknown>>();
      const input = (overrides: Partial<PublishInput>): PublishInput => {
        const key = overrides.idempotencyKey ?? 'contract-key';
        return {
          credentials: account.credentials,
          content: 'adapter',
          media: fake.requiresVideo ? [contractVideo()] : fake.requiresMedia ? [contractImage()] : [],
          ...(fake.publishOptions ? { options: fake.publishOptions } : {}),
          idempotencyKey: key,
          createdAt: new Date('2025-06-01T12:00:00.000Z'),
          checkpoint: checkpoints.get(key) ?? null,
          saveCheckpoint: async (state) => void checkpoints.set(key, state),
          ...overrides,
        };
      };

      beforeAll(async () => {
        account = await adapter.connect(credentials);
      });

      it('publishes idempotently: a retry with the same key returns the same post and creates none', async () => {
        const media = [fake.requiresVideo ? contractVideo() : contractImage()];
        const first = await adapter.publish(input({ content: `contract idem ${id}`, media }));
        const again = await adapter.publish(input({ content: `contract idem ${id}`, media, attempt: 2 }));
        expect(again.platformPostId).toBe(first.platformPostId);
        expect(postsWithText(`contract idem ${id}`)).toHaveLength(1);
      });

      it('maps failures: 5xx is transient, a refusal is permanent', async () => {
        fake.failNext(1, 503, fake.publishRoute);
        await expect(adapter.publish(input({ idempotencyKey: 'k-503' }))).rejects.toBeInstanceOf(
          TransientProviderError,
        );
        fake.failNext(1, fake.rejectStatus, fake.publishRoute);
        await expect(adapter.publish(input({ idempotencyKey: 'k-4xx' }))).rejects.toBeInstanceOf(ContentRejectedError);
      });

      it('reads the metrics the network offers of a published post, and null for the others', async () => {
        const ref = await adapter.publish(input({ content: `contract metrics ${id}`, idempotencyKey: 'k-metrics' }));
        fake.setCounts(ref.platformPostId, { likes: 5, reposts: 3, replies: 2 });
        const { metrics } = await adapter.fetchMetrics(account.credentials, ref);
        const offered: readonly string[] = plugin.capabilities.metrics ?? ['likes', 'reposts', 'replies'];
        const set = { likes: 5, reposts: 3, replies: 2 };
        const expected = Object.fromEntries(
          Object.entries(set).map(([name, value]) => [name, offered.includes(name) ? value : null]),
        );
        for (const figure of fake.unreportedFigures ?? []) Object.assign(expected, { [figure]: null });
        expect(metrics).toEqual(expect.objectContaining(expected));
      });
    });

    // Before the last case: revoking a grant may end every token of the account (Google, TikTok).
    it('revokes the grant at the network when a channel is disconnected, where the network offers revocation', async () => {
      const revocation = fake.revocation;
      if (!adapter.revokeAccess) return void expect(revocation).toBeUndefined();
      expect(revocation).toBeDefined();
      // Another workspace connects the account through the OAuth flow: a grant of its own.
      const other = (await t.createWorkspace()).key;
      const start = await t.request('POST', `/api/channels/connect/${id}`, { key: other, body: {} });
      expect(start.status).toBe(201);
      expect((await t.request('GET', pathOf(await fake.consent!(start.body.authorizationUrl)))).status).toBe(201);
      const list = await t.request('GET', `/api/channels?provider=${id}`, { key: other });
      const disconnecting = list.body.data[0].id as string;
      const token = revocation!.lastAccessToken();
      const withToken = { ...credentials, accessToken: token };
      await expect(adapter.connect(withToken)).resolves.toEqual(
        expect.objectContaining({ externalId: expect.any(String) }),
      );

      const before = revocation!.requests().length;
      expect((await t.request('DELETE', `/api/channels/${disconnecting}`, { key: other })).status).toBe(204);
      const sent = revocation!.requests().slice(before);
      expect(sent).toEqual(revocation!.expected(token).map((request) => expect.objectContaining(request)));
      // The network refuses the token from now on.
      await expect(adapter.connect(withToken)).rejects.toThrow();
    });

    // Last: it breaks the account for the rest of the file.
    it('disconnects the channel when the network revokes the credentials', async () => {
      fake.revokeAll();
      const post = await publishNow(`contract revoked ${id}`);
      expect(post.status).toBe('failed');
      expect(post.targets[0].error).toEqual({ code: 'CREDENTIALS_REVOKED', message: expect.any(String) });
      const channel = await t.request('GET', `/api/channels/${channelId}`, { key });
      expect(channel.body.status).toBe('disconnected');
    });

    it('sent the network nothing its own description refuses', () => {
      if (!fake.described) return void expect(DESCRIPTIONS_PENDING).toContain(id);
      expect(fake.described.violations()).toEqual([]);
    });

    it('has a fake that refuses a publish request with a renamed field, as its description does', async () => {
      if (!fake.described) return void expect(DESCRIPTIONS_PENDING).toContain(id);
      const before = fake.described.violations().length;
      const broken = fake.described.brokenPublish();
      if ('message' in broken) {
        // A WebSocket network (a Nostr relay): the message is sent alone and the relay's answer read.
        const answer = await exchangeMessage(broken.url, broken.message);
        expect({ answer, refused: broken.refused(answer) }).toEqual(expect.objectContaining({ refused: true }));
      } else {
        const res = await fetch(broken.url, { method: broken.method, headers: broken.headers, body: broken.body });
        // A 4xx, or Slack's way of refusing: HTTP 200 with `ok: false`.
        const answer = (await res.json().catch(() => null)) as { ok?: unknown } | null;
        const refused = (res.status >= 400 && res.status < 500) || (res.status === 200 && answer?.ok === false);
        expect({ status: res.status, answer, refused }).toEqual(expect.objectContaining({ refused: true }));
      }
      const violations = fake.described.violations().splice(before);
      expect(violations).toHaveLength(1);
      const said = violations[0].problems.join('\n');
      const named = new RegExp(`\\b(${broken.renamed.from}|${broken.renamed.to})\\b`);
      expect(said).toMatch(named);
    });
  });
});
