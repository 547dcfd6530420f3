import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, webhookHeaders } from './webhook-signer';

describe('webhook signer (Standard Webhooks)', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    expect(
      signWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('produces headers the standardwebhooks library verifies, with either secret during a rotation', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify({ id: 'evt', type: 'post.published', data: { a: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([current, previous], 'evt_1', now, body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});
