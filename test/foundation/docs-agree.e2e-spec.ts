import { FAST_PUBLISHING_ENV, waitFor } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What the documentation shows runs: the example Swagger UI pre-fills for `POST /posts` works after the
 * guide's first steps (a key, a sandbox channel) once its channel id is replaced as it says, carries no
 * date that will pass, and the placeholder id run as is points to where ids come from. The webhook
 * delivery log names its ids so the attempt's is not taken for the delivery's that redeliver takes.
 */
describe('documented examples and names agree with the service', () => {
  let t: TestApp;
  let key: string;
  let doc: any;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV, WEBHOOK_SWEEP_INTERVAL_MS: '500' } });
    ({ key } = await t.createWorkspace());
    doc = (await t.request('GET', '/api/openapi.json')).body;
  });
  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  const examplesOf = (path: string, method: string) =>
    Object.values<{ summary: string; description?: string; value: Record<string, unknown> }>(
      doc.paths[path][method].requestBody.content['application/json'].examples,
    );

  it('pre-fills a POST /posts example that runs after the first steps, without a date that will pass', async () => {
    for (const [path, method] of [
      ['/posts', 'post'],
      ['/posts/{id}', 'put'],
      ['/posts/validate', 'post'],
    ]) {
      for (const example of examplesOf(path, method)) {
        const dates = JSON.stringify(example.value).match(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g) ?? [];
        for (const date of dates) {
          // Not a date that passes while this document is in use.
          expect({
            example: example.summary,
            date,
            yearsAhead: (Date.parse(date) - Date.now()) / 3.15e10 > 50,
          }).toEqual({ example: example.summary, date, yearsAhead: true });
        }
        expect(example.description).toMatch(/Replace the channel id/);
      }
    }

    const [first] = examplesOf('/posts', 'post');
    expect(first.value).not.toHaveProperty('scheduledAt');
    expect(first.value).not.toHaveProperty('mediaIds');

    // The guide's first steps: a key (above) and a sandbox channel.
    const channel = await t.connectChannel(key, 'sandbox', { name: 'My sandbox' });

    // Run as is, the placeholder id says where ids come from.
    const asIs = await t.request('POST', '/api/posts', { key, body: first.value });
    expect(asIs.status).toBe(400);
    expect(asIs.body.message).toContain('GET /api/channels lists yours');

    // With the channel id replaced, as its description says, it publishes.
    const created = await t.request('POST', '/api/posts', { key, body: { ...first.value, channelIds: [channel] } });
    expect(created.status).toBe(201);
    const post = await waitFor(
      async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
      (p) => p.status === 'published' || p.status === 'failed',
    );
    expect(post.status).toBe('published');
  });

  it('names attempts attemptId and deliveries deliveryId in the delivery log; redeliver takes the deliveryId', async () => {
    const hook = await t.request('POST', '/api/webhooks', { key, body: { url: receiver.url('/hooks') } });
    expect(hook.status).toBe(201);
    expect((await t.request('POST', `/api/webhooks/${hook.body.id}/test`, { key })).status).toBe(202);
    const log = await waitFor(
      async () => (await t.request('GET', `/api/webhooks/${hook.body.id}/deliveries`, { key })).body,
      (page) => page.data.length > 0,
    );
    const [attempt] = log.data;
    expect(attempt).toEqual(
      expect.objectContaining({ attemptId: expect.any(String), deliveryId: expect.any(String), attempt: 1 }),
    );
    expect(attempt.attemptId).not.toBe(attempt.deliveryId);
    expect(attempt.id).toBe(attempt.attemptId); // the old name, kept for existing clients

    const wrong = await t.request('POST', `/api/webhooks/${hook.body.id}/deliveries/${attempt.attemptId}/redeliver`, {
      key,
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body.message).toBe(
      `Delivery not found: ${attempt.attemptId} is the attemptId of an attempt of delivery ${attempt.deliveryId}; ` +
        'redeliver takes the deliveryId',
    );
    const right = await t.request('POST', `/api/webhooks/${hook.body.id}/deliveries/${attempt.deliveryId}/redeliver`, {
      key,
    });
    expect(right.status).toBe(202);
    expect(right.body).toMatchObject({ deliveryId: attempt.deliveryId, attempt: 2 });

    const schema = doc.components.schemas.WebhookDeliveryDto;
    expect(schema.properties.attemptId).toMatchObject({ format: 'uuid' });
    expect(schema.properties.id).toMatchObject({ deprecated: true });
    expect(schema.required).toEqual(expect.arrayContaining(['attemptId', 'deliveryId']));
  });
});
