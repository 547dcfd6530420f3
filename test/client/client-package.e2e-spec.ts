import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makePng } from '../factories/png.factory';
import { MastodonFake } from '../fakes/mastodon.fake';
import { sha256, tempMediaDir } from '../media/media-support';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const run = promisify(execFile);
const CLIENT_DIR = join(__dirname, '..', '..', 'packages', 'client');
const CHUNK = 64 * 1024;

/** The package as a user gets it: `npm pack`, then `npm install <tarball>` into an empty project. */
async function installPackedClient(): Promise<{ dir: string; tarball: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-client-e2e-'));
  // The prepack build prints to stdout too (in colour when CI is set), so the tarball is found in
  // the destination folder rather than parsed out of npm's output.
  await run('npm', ['pack', '--pack-destination', dir], {
    cwd: CLIENT_DIR,
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const packed = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  if (packed.length !== 1) throw new Error(`npm pack left ${packed.length} tarballs in ${dir}`);
  const tarball = join(dir, packed[0]);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: dir, timeout: 120_000 });
  return { dir, tarball };
}

describe('@social-publishing/client, packed and installed, against the running service', () => {
  const media = tempMediaDir();
  let t: TestApp;
  let mastodon: MastodonFake;
  let receiver: WebhookReceiver;
  let consumer: { dir: string; tarball: string };
  // The installed package, loaded the way a CommonJS user loads it (its types are checked by the
  // client's own typecheck; the root program has no DOM types to read them with).
  let pkg: any;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-client'] });
    receiver = new WebhookReceiver();
    [consumer] = await Promise.all([installPackedClient(), mastodon.start(), receiver.start()]);
    pkg = createRequire(join(consumer.dir, 'index.js'))('@social-publishing/client');
    t = await TestApp.start({
      env: { ...FAST_PUBLISHING_ENV, MEDIA_DIR: media.dir, MEDIA_CHUNK_BYTES: String(CHUNK) },
    });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon?.stop(), receiver?.stop()]);
    if (consumer) rmSync(consumer.dir, { recursive: true, force: true });
    media.cleanup();
  });

  it('imports with `import` and with `require`, with types for both', async () => {
    const esm = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { SocialPublishing, SocialPublishingError, verifyWebhook } from '@social-publishing/client';" +
          'console.log(typeof SocialPublishing, typeof SocialPublishingError, typeof verifyWebhook);',
      ],
      { cwd: consumer.dir },
    );
    expect(esm.stdout.trim()).toBe('function function function');
    const cjs = await run(
      process.execPath,
      [
        '-e',
        "const c = require('@social-publishing/client');" +
          'console.log(typeof c.SocialPublishing, typeof c.SocialPublishingError, typeof c.verifyWebhook);',
      ],
      { cwd: consumer.dir },
    );
    expect(cjs.stdout.trim()).toBe('function function function');
    const { stdout } = await run('tar', ['-tzf', consumer.tarball]);
    expect(stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.cjs',
        'package/dist/index.d.ts',
        'package/dist/index.d.cts',
        'package/README.md',
        'package/package.json',
      ]),
    );
    const manifest = JSON.parse(
      readFileSync(join(consumer.dir, 'node_modules', '@social-publishing', 'client', 'package.json'), 'utf8'),
    );
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it('drives every resource group: keys, webhooks, channels, a multi-chunk upload, posts published through the network, events, analytics', async () => {
    const { key } = await t.createWorkspace();
    const sp = new pkg.SocialPublishing({ apiKey: key, baseUrl: `${t.baseUrl}/api` });

    // API keys
    const created = await sp.apiKeys.create({ name: 'ci' });
    expect(created.key).toMatch(/^spk_/);
    expect((await sp.apiKeys.list()).data.map((k: any) => k.id)).toContain(created.id);
    await sp.apiKeys.revoke(created.id);
    const revoked = (await sp.apiKeys.iterate().toArray()).find((k: any) => k.id === created.id);
    expect(revoked?.revokedAt).toEqual(expect.any(String));
    expect(sp.rateLimit).toEqual(expect.objectContaining({ limit: 100_000, remaining: expect.any(Number) }));

    // Webhooks (rotated once: deliveries carry both signatures for a while)
    const hook = await sp.webhooks.create({ url: receiver.url('/client'), events: ['post.published'] });
    expect((await sp.webhooks.get(hook.id)).url).toBe(receiver.url('/client'));
    expect((await sp.webhooks.list()).data).toHaveLength(1);
    expect(
      (await sp.webhooks.update(hook.id, { url: hook.url, events: ['post.published'], description: 'ci' })).description,
    ).toBe('ci');
    const rotated = await sp.webhooks.rotateSecret(hook.id);
    expect(rotated.secret).not.toBe(hook.secret);
    const testEvent = await sp.webhooks.test(hook.id);
    expect(testEvent.type).toBe('webhook.test');

    // Channels
    const channel = await sp.channels.connect({
      provider: 'mastodon',
      credentials: { instanceUrl: mastodon.baseUrl, accessToken: 'tok-client' },
    });
    expect(channel.status).toBe('active');
    expect((await sp.channels.get(channel.id)).id).toBe(channel.id);
    expect((await sp.channels.iterate({ status: 'active' }).toArray()).map((c: any) => c.id)).toEqual([channel.id]);

    // Media: a real PNG in several chunks, sent in parallel
    const png = makePng(400, 300, { noise: true, seed: 5 }); // ~360 KB: 6 chunks of 64 KiB
    const progress: number[] = [];
    const image = await sp.media.upload(png, {
      filename: 'noise.png',
      mimeType: 'image/png',
      concurrency: 3,
      onProgress: (p: any) => progress.push(p.uploadedChunks),
    });
    expect(image).toMatchObject({ status: 'ready', width: 400, height: 300, size: png.length, sha256: sha256(png) });
    expect(image.totalChunks).toBeGreaterThan(4);
    expect(progress).toHaveLength(image.totalChunks);
    expect((await sp.media.get(image.id)).receivedChunks).toHaveLength(image.totalChunks);
    const scrap = await sp.media.upload(new Blob([makePng(8, 8)]), { filename: 'scrap.png', mimeType: 'image/png' });
    await sp.media.delete(scrap.id);
    await expect(sp.media.get(scrap.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });

    // Posts
    const body = { content: 'From the official client', channelIds: [channel.id], mediaIds: [image.id] };
    expect(await sp.posts.validate(body)).toEqual({ valid: true, problems: [], warnings: [] });
    const draft = await sp.posts.create({ content: 'draft', channelIds: [channel.id] });
    expect(draft.status).toBe('draft');
    expect((await sp.posts.update(draft.id, { content: 'draft 2', channelIds: [channel.id] })).content).toBe('draft 2');
    const post = await sp.posts.create({ ...body, publishNow: true });
    const published = await waitFor<any>(
      () => sp.posts.get(post.id),
      (p: any) => p.status === 'published' || p.status === 'failed',
    );
    expect(published.status).toBe('published');
    expect(published.targets[0]!.url).toMatch(/^http/);
    expect(mastodon.statuses.map((s) => s.text)).toContain('From the official client');
    const listed = await sp.posts.list({ limit: 1 });
    expect(listed.data).toHaveLength(1);
    expect(listed.nextCursor).toEqual(expect.any(String));
    expect((await sp.posts.iterate({ limit: 1 }).toArray()).map((p: any) => p.id).sort()).toEqual(
      [draft.id, post.id].sort(),
    );
    await sp.posts.delete(draft.id);
    await expect(sp.posts.get(draft.id)).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'Post not found',
    });

    // Posting schedules: a queued post takes the channel's next free slot
    const schedule = await sp.channels.setSchedule(channel.id, {
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'mon', time: '09:00' },
        { day: 'mon', time: '09:00' },
      ],
    });
    expect(schedule.slots).toEqual([{ day: 'mon', time: '09:00' }]);
    expect((await sp.channels.schedule(channel.id)).timezone).toBe('Europe/Berlin');
    const [next] = (await sp.channels.freeSlots(channel.id, { limit: 1 })).data;
    const queued = await sp.posts.create({ content: 'Queued by the client', channelIds: [channel.id], queue: true });
    expect(queued).toMatchObject({ status: 'scheduled', queued: true, scheduledAt: next!.at });
    await sp.posts.delete(queued.id);

    // Events
    const events = await sp.events.iterate({ type: 'post.published' }).toArray();
    expect(events.map((e: any) => e.type === 'post.published' && e.data.id)).toEqual([post.id]);

    // Analytics
    expect((await sp.analytics.post(post.id)).postId).toBe(post.id);
    expect((await sp.analytics.channel(channel.id)).channelId).toBe(channel.id);
    expect(await sp.analytics.refresh(post.id)).toEqual({ postId: post.id, status: 'queued' });

    // The webhook: received, verified with the secrets the receiver holds, typed by `type`
    const [received] = await receiver
      .waitForCount('/client', 2, 15_000)
      .then((all) => all.filter((r) => JSON.parse(r.body).type === 'post.published'));
    expect(received).toBeDefined();
    const event = await pkg.verifyWebhook(received.body, received.headers, [rotated.secret, hook.secret]);
    expect(event.type).toBe('post.published');
    if (event.type === 'post.published') expect(event.data.id).toBe(post.id);
    await expect(
      pkg.verifyWebhook(received.body, received.headers, 'whsec_' + 'A'.repeat(43) + '='),
    ).rejects.toBeInstanceOf(pkg.WebhookVerificationError);
    const deliveries = await sp.webhooks.deliveries(hook.id);
    expect(deliveries.data.length).toBeGreaterThan(0);

    await sp.channels.disconnect(channel.id);
    expect((await sp.channels.get(channel.id)).status).toBe('disconnected');
    await sp.webhooks.delete(hook.id);
    await expect(sp.webhooks.get(hook.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('retries a 429 after Retry-After', async () => {
    const { key } = await t.createWorkspace(undefined, { perMinute: 60, burst: 1 });
    const statuses: number[] = [];
    const sp = new pkg.SocialPublishing({
      apiKey: key,
      baseUrl: `${t.baseUrl}/api`,
      fetch: async (request: Request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    await sp.posts.list();
    const started = Date.now();
    await expect(sp.channels.list()).resolves.toEqual({ data: [], nextCursor: null });
    expect(statuses).toEqual([200, 429, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('reports an invalid key as SocialPublishingError UNAUTHORIZED "Invalid API key" with the request id', async () => {
    const sp = new pkg.SocialPublishing({ apiKey: 'spk_' + 'x'.repeat(36), baseUrl: `${t.baseUrl}/api/` });
    const err = await sp.posts.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(pkg.SocialPublishingError);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED', message: 'Invalid API key' });
    expect((err as { requestId?: string }).requestId).toEqual(expect.any(String));
  });
});
