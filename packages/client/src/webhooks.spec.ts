import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors';
import { signWebhook, verifyWebhook } from './webhooks';

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const vectorHeaders = (signature = VECTOR.signature) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': signature,
});

describe('verifyWebhook', () => {
  const at = VECTOR.timestamp * 1000;

  it('accepts the Standard Webhooks test vector', async () => {
    await expect(verifyWebhook(VECTOR.payload, vectorHeaders(), VECTOR.secret, { now: at })).resolves.toEqual({
      test: 2432232314,
    });
    expect(await signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it('rejects a tampered body, another secret, a bad signature and missing headers', async () => {
    const fail = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(WebhookVerificationError);
    await fail(verifyWebhook('{"test": 2432232315}', vectorHeaders(), VECTOR.secret, { now: at }));
    await fail(
      verifyWebhook(VECTOR.payload, vectorHeaders(), 'whsec_' + Buffer.alloc(24, 1).toString('base64'), { now: at }),
    );
    await fail(verifyWebhook(VECTOR.payload, vectorHeaders('v1,AAAA'), VECTOR.secret, { now: at }));
    await fail(
      verifyWebhook(VECTOR.payload, vectorHeaders('v2,' + VECTOR.signature.slice(3)), VECTOR.secret, { now: at }),
    );
    await fail(verifyWebhook(VECTOR.payload, { 'webhook-id': VECTOR.id }, VECTOR.secret, { now: at }));
  });

  it('checks the timestamp against the tolerance (default 5 minutes)', async () => {
    await expect(
      verifyWebhook(VECTOR.payload, vectorHeaders(), VECTOR.secret, { now: at + 299_000 }),
    ).resolves.toBeDefined();
    await expect(verifyWebhook(VECTOR.payload, vectorHeaders(), VECTOR.secret, { now: at + 301_000 })).rejects.toThrow(
      /too old/,
    );
    await expect(verifyWebhook(VECTOR.payload, vectorHeaders(), VECTOR.secret, { now: at - 301_000 })).rejects.toThrow(
      /too new/,
    );
    await expect(
      verifyWebhook(VECTOR.payload, vectorHeaders(), VECTOR.secret, { now: at + 3_000_000, toleranceSeconds: 3600 }),
    ).resolves.toBeDefined();
  });

  it('verifies what the standardwebhooks package signs, with either secret during a rotation', async () => {
    const secrets = [
      'whsec_' + Buffer.alloc(32, 7).toString('base64'),
      'whsec_' + Buffer.alloc(32, 9).toString('base64'),
    ];
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'post.published',
      timestamp: new Date().toISOString(),
      workspaceId: 'w',
      data: { id: 'p' },
    });
    const now = new Date();
    const sigs = secrets.map((s) => new Webhook(s).sign('evt_1', now, body));
    const headers = new Headers({
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': sigs.join(' '),
    });
    const event = await verifyWebhook(body, headers, secrets[0]);
    expect(event.type).toBe('post.published');
    await expect(verifyWebhook(new TextEncoder().encode(body), headers, [secrets[1]])).resolves.toEqual(
      JSON.parse(body),
    );
    // Only the new signature on the wire; the receiver still holds both secrets.
    headers.set('webhook-signature', sigs[1]);
    await expect(verifyWebhook(body, headers, secrets)).resolves.toEqual(JSON.parse(body));
    await expect(verifyWebhook(body, headers, [secrets[0]])).rejects.toBeInstanceOf(WebhookVerificationError);
    // And standardwebhooks verifies what we sign.
    const ours = await signWebhook(secrets[0], 'evt_2', Math.floor(now.getTime() / 1000), body);
    expect(
      new Webhook(secrets[0]).verify(body, {
        'webhook-id': 'evt_2',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': ours,
      }),
    ).toEqual(JSON.parse(body));
  });
});
