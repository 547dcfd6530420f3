import { OutboundHttp } from '../../src/common/http/outbound-http';
import { GoogleBusinessProvider } from '../../src/providers/google-business/google-business.provider';
import type { GoogleBusinessOptions } from '../../src/providers/google-business/google-business.options';
import type { ConnectedAccount, PublishInput } from '../../src/providers/social-provider.interface';
import { GoogleBusinessFake } from '../fakes/google_business.fake';
import { FileServer } from '../support/file-server';
import { TINY_JPEG, mediaFrom } from './media.fixture';

/**
 * Every kind of local post the adapter builds (STANDARD with a photo and a button, EVENT with a
 * schedule, OFFER with its coupon), held against the Business Profile APIs' descriptions: the fake
 * refuses any field, enum value or parameter they do not declare.
 */
describe('Google Business Profile local posts (against the described fake)', () => {
  const fake = new GoogleBusinessFake();
  const files = new FileServer();
  const http = new OutboundHttp({ allowPrivate: true, defaultTimeoutMs: 5000 });
  const adapter = new GoogleBusinessProvider(http);
  let account: ConnectedAccount;

  beforeAll(async () => {
    const baseUrl = await fake.start();
    await files.start();
    files.put('/photo.jpeg', { type: 'image/jpeg', body: TINY_JPEG });
    account = await adapter.connect({ accessToken: fake.issueToken(), apiBaseUrl: baseUrl });
  });
  afterAll(async () => {
    await fake.stop();
    await files.stop();
    http.close();
  });

  const input = (content: string, options: Partial<GoogleBusinessOptions>, withPhoto = false): PublishInput => ({
    credentials: account.credentials,
    content,
    media: withPhoto
      ? [
          mediaFrom(TINY_JPEG, {
            mimeType: 'image/jpeg',
            filename: 'photo.jpeg',
            publicUrl: () => Promise.resolve(`${files.base}/photo.jpeg`),
          }),
        ]
      : [],
    options,
    idempotencyKey: content,
    createdAt: new Date(),
    checkpoint: null,
    saveCheckpoint: async () => undefined,
  });

  it('publishes a STANDARD post with a photo and a button as LocalPost describes it', async () => {
    await adapter.publish(
      input(
        'Fresh bread',
        { languageCode: 'fr', callToAction: { actionType: 'ORDER', url: 'https://b.example/' } },
        true,
      ),
    );
    expect(fake.posts.at(-1)).toEqual(expect.objectContaining({ summary: 'Fresh bread' }));
  });

  it('publishes an EVENT with its schedule (Date and TimeOfDay objects)', async () => {
    await adapter.publish(
      input('Tasting night', {
        topicType: 'EVENT',
        event: { title: 'Tasting', schedule: { start: '2027-01-10T18:00', end: '2027-01-10T21:30' } },
        callToAction: { actionType: 'CALL' },
      }),
    );
  });

  it('publishes an OFFER with its coupon and terms', async () => {
    await adapter.publish(
      input('Two for one', {
        topicType: 'OFFER',
        event: { title: 'January offer', schedule: { start: '2027-01-01', end: '2027-01-31' } },
        offer: { couponCode: 'BREAD2', redeemOnlineUrl: 'https://b.example/offer', termsConditions: 'One per visit' },
      }),
    );
  });

  it('sent nothing the descriptions refuse, and a renamed field would have been refused', async () => {
    expect(fake.descriptionViolations).toEqual([]);
    const res = await fetch(
      `${fake.baseUrl}/v4/${String(account.credentials.accountName)}/${String(account.credentials.locationName)}/localPosts`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.issueToken()}` },
        body: JSON.stringify({
          summary: 'x',
          topicType: 'STANDARD',
          callToAction: { actionType: 'ORDER', link: 'https://b.example/' },
        }),
      },
    );
    expect(res.status).toBe(400);
    expect(fake.descriptionViolations.at(-1)?.problems.join('\n')).toContain('Unknown name "link"');
  });
});
