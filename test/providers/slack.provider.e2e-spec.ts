import { OutboundHttp } from '../../src/common/http/outbound-http';
import { SLACK_OPTIONS_SCHEMA } from '../../src/providers/slack/slack.options';
import { SlackProvider } from '../../src/providers/slack/slack.provider';
import { makePng } from '../factories/png.factory';
import { SlackFake } from '../fakes/slack.fake';
import { CLIENT_ORIGIN, browse, pathOf, useOAuthApp } from '../oauth/oauth-harness';
import { makeMp4, publishNow, uploadMedia } from './chat-network-support';

describe('Slack through the app, against a Web API fake', () => {
  const fake = new SlackFake({
    channels: [
      { id: 'C0GENERAL', name: 'general' },
      { id: 'C0RELEASES', name: 'releases' },
      { id: 'G0PRIVATE', name: 'leads', isPrivate: true, isMember: true },
      { id: 'G0HIDDEN', name: 'hidden', isPrivate: true, isMember: false },
    ],
    lateShares: false,
  });
  const h = useOAuthApp('slack', fake);
  let releases: string;
  let leads: string;

  it('is listed by GET /providers as an OAuth network, enabled by SLACK_CLIENT_ID and SLACK_CLIENT_SECRET', async () => {
    const providers = (await h.t.request('GET', '/api/providers', { key: h.key })).body.data;
    expect(providers.find((p: { id: string }) => p.id === 'slack')).toMatchObject({
      id: 'slack',
      name: 'Slack',
      connect: 'oauth',
      apiVersion: 'Web API (unversioned)',
      apiSunset: null,
      enabled: true,
      limits: { maxCharacters: 3000, maxMedia: 10, threads: false },
      optionsSchema: JSON.parse(JSON.stringify(SLACK_OPTIONS_SCHEMA)),
    });
  });

  it('installs the app and lets the caller choose among the channels the bot may post to', async () => {
    const start = await h.start({ redirectUri: `${CLIENT_ORIGIN}/done` });
    expect(start.status).toBe(201);
    const authorize = new URL(start.body.authorizationUrl);
    expect(authorize.pathname).toBe('/oauth/v2/authorize');
    expect(authorize.searchParams.get('scope')).toBe(
      'chat:write,chat:write.public,channels:read,groups:read,files:write,reactions:read',
    );
    const callback = await fake.consent(start.body.authorizationUrl);
    const landed = await browse(h.t, pathOf(callback));
    expect(landed.status).toBe(302);
    const connectionId = new URL(landed.headers.get('location')!).searchParams.get('connectionId')!;
    const connection = await h.t.request('GET', `/api/oauth/connections/${connectionId}`, { key: h.key });
    expect(connection.body.targets.map((t: { handle: string }) => t.handle)).toEqual([
      '#general',
      '#releases',
      '#leads',
    ]);
    const ids = connection.body.targets.map((t: { id: string }) => t.id);
    const chosen = await h.t.request('POST', `/api/oauth/connections/${connectionId}/channels`, {
      key: h.key,
      body: { targetIds: [ids[1], ids[2]] },
    });
    expect(chosen.status).toBe(201);
    [releases, leads] = chosen.body.data.map((c: { id: string }) => c.id);
    expect(chosen.body.data[0]).toMatchObject({ provider: 'slack', name: '#releases (Acme)', status: 'active' });
  });

  it('posts text as a section block, with the characters Slack reserves escaped', async () => {
    const post = await publishNow(h.t, h.key, releases, 'Ship it <!channel> & <@U123> https://example.com');
    expect(post.status).toBe('published');
    const message = fake.messages[fake.messages.length - 1];
    const escaped = 'Ship it &lt;!channel&gt; &amp; &lt;@U123&gt; https://example.com';
    expect(message).toMatchObject({ channel: 'C0RELEASES', text: escaped });
    expect(message.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: escaped } }]);
    expect(post.targets[0].platformPostId).toBe(message.ts);
  });

  it("uploads an image and a video through Slack's external upload flow and shares them with the text", async () => {
    const png = await uploadMedia(h.t, h.key, makePng(32, 24), 'chart.png', 'image/png', 'A rising chart');
    const mp4 = await uploadMedia(h.t, h.key, makeMp4(), 'demo.mp4', 'video/mp4');
    fake.clearRequests();
    const post = await publishNow(h.t, h.key, releases, 'Release notes', [png, mp4]);
    expect(post.status).toBe('published');
    expect(fake.requests.map((r) => r.route)).toEqual([
      'files.getUploadURLExternal',
      'upload',
      'files.getUploadURLExternal',
      'upload',
      'files.completeUploadExternal',
    ]);
    const message = fake.messages[fake.messages.length - 1];
    expect(message).toMatchObject({ channel: 'C0RELEASES', text: 'Release notes' });
    expect(message.files).toEqual([
      expect.objectContaining({ filename: 'chart.png', altText: 'A rising chart' }),
      expect.objectContaining({ filename: 'demo.mp4', altText: null }),
    ]);
    expect(post.targets[0].platformPostId).toBe(message.ts);
  });

  describe("the target's options", () => {
    const last = () => fake.messages[fake.messages.length - 1];
    const post = (content: string, options: unknown, mediaIds: string[] = []) =>
      h.t.request('POST', '/api/posts', {
        key: h.key,
        body: {
          content,
          channelIds: [releases],
          mediaIds,
          targets: [{ channelId: releases, options }],
          publishNow: true,
        },
      });
    const publishWith = async (content: string, options: unknown, mediaIds: string[] = []) => {
      const created = await post(content, options, mediaIds);
      expect(created.status).toBe(201);
      return h.settled(created.body.id);
    };
    let parentTs: string;

    it('unfurls links and media by default, and not when the options say so', async () => {
      const plain = await publishNow(h.t, h.key, releases, 'Thread starter https://example.com/a');
      expect(plain.status).toBe('published');
      parentTs = plain.targets[0].platformPostId;
      expect(last()).toMatchObject({ unfurlLinks: true, unfurlMedia: true, threadTs: null });
      const options = { unfurlLinks: false, unfurlMedia: false };
      const quiet = await publishWith('No preview https://example.com/b', options);
      expect(quiet.status).toBe('published');
      expect(quiet.targets[0].options).toEqual(options);
      expect(last()).toMatchObject({ unfurlLinks: false, unfurlMedia: false });
    });

    it('replies in a thread, broadcast to the channel, and shares files into the thread', async () => {
      const reply = await publishWith('A reply for everyone', { threadTs: parentTs, replyBroadcast: true });
      expect(reply.status).toBe('published');
      expect(last()).toMatchObject({ text: 'A reply for everyone', threadTs: parentTs, replyBroadcast: true });
      const png = await uploadMedia(h.t, h.key, makePng(16, 16), 'thread.png', 'image/png');
      const files = await publishWith('A chart in the thread', { threadTs: parentTs }, [png]);
      expect(files.status).toBe('published');
      expect(last()).toMatchObject({ text: 'A chart in the thread', threadTs: parentTs, replyBroadcast: false });
      expect(fake.messages.find((m) => m.ts === parentTs)?.replyCount).toBe(2);
    });

    it('fails the target with CONTENT_REJECTED when the thread is not in the channel', async () => {
      const count = fake.messages.length;
      const lost = await publishWith('Into nowhere', { threadTs: '1600000000.000100' });
      expect(lost.status).toBe('failed');
      expect(lost.targets[0].error).toEqual({
        code: 'CONTENT_REJECTED',
        message: expect.stringContaining('thread_not_found'),
      });
      expect(fake.messages.length).toBe(count);
    });

    it('refuses a broadcast without a thread, or with files, at targets[0].options.<field>', async () => {
      fake.clearRequests();
      const alone = await post('broadcast alone', { replyBroadcast: true });
      expect(alone.status).toBe(400);
      expect(alone.body.error).toBe('VALIDATION_ERROR');
      expect(alone.body.details).toEqual([
        { field: 'targets[0].options.threadTs', message: expect.stringContaining('is required') },
      ]);
      const png = await uploadMedia(h.t, h.key, makePng(16, 16), 'b.png', 'image/png');
      fake.clearRequests();
      const withFiles = await post('broadcast files', { threadTs: parentTs, replyBroadcast: true, unfurl: true }, [
        png,
      ]);
      expect(withFiles.status).toBe(400);
      expect(withFiles.body.details.map((d: { field: string }) => d.field)).toEqual([
        'targets[0].options.unfurl',
        'targets[0].options.replyBroadcast',
      ]);
      expect(fake.requests).toHaveLength(0);
    });
  });

  it('refuses text over the 3,000 characters of a section block before sending', async () => {
    const res = await h.t.request('POST', '/api/posts/validate', {
      key: h.key,
      body: { content: 'x'.repeat(3001), channelIds: [releases] },
    });
    expect(res.body.problems).toEqual([
      expect.objectContaining({
        field: 'content',
        message: expect.stringContaining('The text is 3001 characters long; Slack allows 3000'),
      }),
    ]);
  });

  it('refuses an alt text over the 1,000 characters Slack takes (alt_txt_too_large) before sending', async () => {
    const png = await uploadMedia(h.t, h.key, makePng(8, 8), 'alt.png', 'image/png', 'a'.repeat(1001));
    const res = await h.t.request('POST', '/api/posts/validate', {
      key: h.key,
      body: { content: 'alt text', channelIds: [releases], mediaIds: [png] },
    });
    expect(res.body.problems).toEqual([
      expect.objectContaining({
        field: 'mediaIds',
        message: expect.stringContaining('has 1001 characters; Slack allows 1000'),
      }),
    ]);
    // The fake answers as Slack does when an alt text that long reaches it.
    const direct = await fetch(
      `${fake.baseUrl}/api/files.getUploadURLExternal?filename=a.png&length=10&alt_txt=${'a'.repeat(1001)}`,
      { headers: { authorization: `Bearer ${fake.issueToken()}` } },
    );
    expect(await direct.json()).toEqual({ ok: false, error: 'alt_txt_too_large' });
  });

  it("waits the Retry-After of Slack's 429 before trying again", async () => {
    fake.retryAfterSeconds = 2;
    fake.failNext(1, 429, 'chat.postMessage');
    fake.clearRequests();
    const post = await publishNow(h.t, h.key, releases, 'after the rate limit');
    expect(post.status).toBe('published');
    const sends = fake.requests.filter((r) => r.route === 'chat.postMessage');
    expect(sends).toHaveLength(2);
    expect(sends[1].at - sends[0].at).toBeGreaterThanOrEqual(1900);
  });

  it('reads reactions as likes and the thread replies as replies', async () => {
    const http = new OutboundHttp({ allowPrivate: true });
    try {
      const adapter = new SlackProvider(http);
      const account = await adapter.connect({ accessToken: fake.issueToken(), apiBaseUrl: fake.baseUrl });
      const ref = await adapter.publish({
        credentials: account.credentials,
        content: 'metrics',
        media: [],
        idempotencyKey: 'k',
        createdAt: new Date(),
        checkpoint: null,
        saveCheckpoint: async () => undefined,
      });
      fake.setCounts(ref.platformPostId, { likes: 4, replies: 3 });
      const { metrics } = await adapter.fetchMetrics(account.credentials, ref);
      expect(metrics).toMatchObject({ likes: 4, replies: 3, reposts: null, impressions: null });
    } finally {
      http.close();
    }
  });

  it('disconnects a channel the bot was removed from (not_in_channel)', async () => {
    fake.channels.find((c) => c.id === 'G0PRIVATE')!.isMember = false;
    const post = await publishNow(h.t, h.key, leads, 'to the leads');
    expect(post.status).toBe('failed');
    expect(post.targets[0].error).toEqual({
      code: 'CREDENTIALS_REVOKED',
      message: expect.stringContaining('not_in_channel'),
    });
    expect((await h.t.request('GET', `/api/channels/${leads}`, { key: h.key })).body.status).toBe('disconnected');
  });
});
