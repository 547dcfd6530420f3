import { Webhook as StandardWebhook } from 'standardwebhooks';
import { MastodonFake } from '../fakes/mastodon.fake';
import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The whole chain: publish through the API -> outbox -> relay -> signed delivery. */
describe('post events reach a subscribed webhook', () => {
  let t: TestApp;
  let mastodon: MastodonFake;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    mastodon = new MastodonFake({ tokens: ['tok-ok', 'tok-gone'] });
    receiver = new WebhookReceiver();
    await Promise.all([mastodon.start(), receiver.start()]);
    t = await TestApp.start({ env: FAST_PUBLISHING_ENV });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([mastodon.stop(), receiver.stop()]);
  });

  it('delivers post.published, post.failed and channel.disconnected from real publications, verifiable by the receiver', async () => {
    const { key } = await t.createWorkspace();
    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url('/posts'), events: ['post.published', 'post.failed', 'channel.disconnected'] },
    });
    expect(hook.status).toBe(201);
    const connect = async (token: string) =>
      (
        await t.request('POST', '/api/channels', {
          key,
          body: { provider: 'mastodon', credentials: { instanceUrl: mastodon.baseUrl, accessToken: token } },
        })
      ).body.id as string;
    const ok = await connect('tok-ok');
    const gone = await connect('tok-gone');
    mastodon.revokeToken('tok-gone');

    const published = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'to the hook', channelIds: [ok], publishNow: true },
    });
    const failed = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'revoked', channelIds: [gone], publishNow: true },
    });
    for (const id of [published.body.id, failed.body.id]) {
      await waitFor(
        async () => (await t.request('GET', `/api/posts/${id}`, { key })).body.status,
        (s) => s === 'published' || s === 'failed',
      );
    }

    const received = await receiver.waitForCount('/posts', 3, 15_000);
    const verifier = new StandardWebhook(hook.body.secret);
    for (const r of received) verifier.verify(r.body, r.headers as Record<string, string>);
    const events = receiver.events('/posts');
    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType('post.published').map((e) => e.data.id)).toEqual([published.body.id]);
    expect(byType('post.published')[0].data.targets[0].url).toEqual(expect.stringMatching(/^http/));
    expect(byType('post.failed').map((e) => e.data.id)).toEqual([failed.body.id]);
    expect(byType('post.failed')[0].data.targets[0].error.code).toBe('CREDENTIALS_REVOKED');
    expect(byType('channel.disconnected').map((e) => [e.data.id, e.data.reason])).toEqual([
      [gone, 'credentials_revoked'],
    ]);
    for (const r of received) expect(r.headers['webhook-id']).toBe(JSON.parse(r.body).id);
  });
  it("delivers post.first_comment_failed when a published post's first comment is refused for good", async () => {
    const { key } = await t.createWorkspace();
    const hook = await t.request('POST', '/api/webhooks', {
      key,
      body: { url: receiver.url('/comments'), events: ['post.first_comment_failed'] },
    });
    expect(hook.status).toBe(201);
    const sandbox = await t.connectChannel(key, 'sandbox', { name: 'Hooked' });
    const created = await t.request('POST', '/api/posts', {
      key,
      body: { content: 'post first', channelIds: [sandbox], firstComment: 'refused #fail-permanent', publishNow: true },
    });
    expect(created.status).toBe(201);
    const [received] = await receiver.waitForCount('/comments', 1, 15_000);
    new StandardWebhook(hook.body.secret).verify(received.body, received.headers as Record<string, string>);
    const [event] = receiver.events('/comments');
    expect(event.type).toBe('post.first_comment_failed');
    expect(event.data).toEqual(
      expect.objectContaining({
        id: created.body.id,
        status: 'published',
        firstComment: 'refused #fail-permanent',
        targets: [
          expect.objectContaining({
            status: 'published',
            firstComment: expect.objectContaining({
              status: 'failed',
              error: expect.stringContaining('#fail-permanent'),
            }),
          }),
        ],
      }),
    );
  });
});
