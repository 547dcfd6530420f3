import { GOOGLE_BUSINESS_OPTIONS_SCHEMA } from '../../src/providers/google-business/google-business.options';
import { GOOGLE_BUSINESS_ROUTES, GoogleBusinessFake } from '../fakes/google_business.fake';
import { TestApp } from '../support/test-app';
import { PUBLIC_BASE_URL, useOAuthApp } from './oauth-harness';

const BAKERY = 'locations/4000000000000000011';
const CAFE = 'locations/4000000000000000012';
const SHOP = 'locations/4000000000000000013';

describe('Google Business Profile (against the fake)', () => {
  const google = new GoogleBusinessFake({
    retryAfterSeconds: 1,
    accounts: [
      {
        id: '107000000000000000011',
        accountName: 'Alice Owner',
        type: 'PERSONAL',
        locations: [
          { id: '4000000000000000011', title: 'Alice Bakery', locality: 'Lyon' },
          { id: '4000000000000000012', title: 'Alice Cafe', locality: 'Paris' },
        ],
      },
      {
        id: '107000000000000000012',
        accountName: 'Alice Group',
        type: 'LOCATION_GROUP',
        locations: [
          { id: '4000000000000000012', title: 'Alice Cafe', locality: 'Paris' },
          { id: '4000000000000000013', title: 'Alice Shop', locality: 'Nice', verified: false },
        ],
      },
    ],
  });
  const h = useOAuthApp('google_business', google, { reachable: true });
  let t: TestApp;
  let key: string;
  beforeAll(() => ({ t, key } = h));

  let bakery: string;
  let shop: string;
  const postsWith = (text: string) => google.posts.filter((p) => p.summary === text);

  it('lists Google Business Profile as an OAuth network with its limits', async () => {
    const res = await t.request('GET', '/api/providers', { key });
    expect(res.body.data.find((p: any) => p.id === 'google_business')).toEqual({
      id: 'google_business',
      name: 'Google Business Profile',
      connect: 'oauth',
      apiVersion: 'v4 (local posts), v1 (accounts and locations)',
      apiSunset: null,
      enabled: true,
      limits: {
        maxCharacters: 1500,
        maxMedia: 1,
        maxImageBytes: 5 * 1024 * 1024,
        supportedMimeTypes: ['image/jpeg', 'image/png'],
        threads: false,
        firstComment: false,
        video: null,
      },
      optionsSchema: JSON.parse(JSON.stringify(GOOGLE_BUSINESS_OPTIONS_SCHEMA)),
    });
  });

  it('asks Google for offline access with consent, the business.manage scope and PKCE', async () => {
    const res = await h.start();
    expect(res.status).toBe(201);
    const url = new URL(res.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${google.baseUrl}/o/oauth2/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      access_type: 'offline',
      prompt: 'consent',
      response_type: 'code',
      client_id: google.clientId,
      redirect_uri: `${h.publicBaseUrl}/api/oauth/google_business/callback`,
      scope: 'https://www.googleapis.com/auth/business.manage',
      state: res.body.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(PUBLIC_BASE_URL).not.toBe(h.publicBaseUrl); // Google downloads photos from our real address
  });

  it('lists every location of every account once, and makes one channel per chosen location', async () => {
    const connectionId = (await h.authorize()).get('connectionId')!;
    const listed = await h.getConnection(connectionId);
    expect(listed.body.targets).toEqual([
      {
        id: BAKERY,
        kind: 'organization',
        name: 'Alice Bakery',
        handle: 'Alice Bakery (Lyon)',
        avatarUrl: null,
        profileUrl: 'https://maps.google.com/maps?cid=4000000000000000011',
        channelId: null,
      },
      expect.objectContaining({ id: CAFE, name: 'Alice Cafe' }),
      expect.objectContaining({ id: SHOP, name: 'Alice Shop' }),
    ]);
    const chosen = await h.choose(connectionId, [BAKERY, SHOP]);
    expect(chosen.status).toBe(201);
    [bakery, shop] = chosen.body.data.map((c: { id: string }) => c.id);
    expect(await h.storedCredentials(shop)).toEqual(
      expect.objectContaining({
        accountName: 'accounts/107000000000000000012',
        locationName: SHOP,
        refreshToken: expect.any(String),
      }),
    );
  });

  it('publishes a STANDARD local post with the text as summary', async () => {
    const post = await h.settled(await h.publishNow(bakery, 'Fresh croissants until noon'));
    expect(post.status).toBe('published');
    const [onGoogle] = postsWith('Fresh croissants until noon');
    expect(onGoogle).toEqual(expect.objectContaining({ topicType: 'STANDARD', photo: null, callToAction: null }));
    expect(onGoogle.name).toMatch(/^accounts\/107000000000000000011\/locations\/4000000000000000011\/localPosts\/\d+$/);
    expect(post.targets[0]).toEqual(
      expect.objectContaining({ platformPostId: onGoogle.name, url: expect.stringContaining('use=posts') }),
    );
  });

  it('publishes an EVENT with its schedule and a button, in the language given, from the options', async () => {
    const options = {
      topicType: 'EVENT',
      languageCode: 'fr',
      event: { title: 'Journée portes ouvertes', schedule: { start: '2027-03-06T09:00', end: '2027-03-06' } },
      callToAction: { actionType: 'LEARN_MORE', url: 'https://example.com/open-day' },
    };
    const id = await h.publishNow(bakery, 'Come and see the ovens', [], { targets: [{ channelId: bakery, options }] });
    const post = await h.settled(id);
    expect(post.status).toBe('published');
    expect(post.targets[0].options).toEqual(options);
    const [onGoogle] = postsWith('Come and see the ovens');
    expect(onGoogle).toEqual(
      expect.objectContaining({
        topicType: 'EVENT',
        languageCode: 'fr',
        callToAction: { actionType: 'LEARN_MORE', url: 'https://example.com/open-day' },
        event: {
          title: 'Journée portes ouvertes',
          schedule: {
            startDate: { year: 2027, month: 3, day: 6 },
            startTime: { hours: 9, minutes: 0, seconds: 0, nanos: 0 },
            endDate: { year: 2027, month: 3, day: 6 },
          },
        },
        offer: null,
      }),
    );
  });

  it('publishes an OFFER with its coupon over the dates of its event, and a CALL button without a URL', async () => {
    const options = {
      topicType: 'OFFER',
      event: { title: 'Spring sale', schedule: { start: '2027-04-01', end: '2027-04-30' } },
      offer: {
        couponCode: 'SPRING10',
        redeemOnlineUrl: 'https://example.com/redeem',
        termsConditions: 'One per visit',
      },
      callToAction: { actionType: 'CALL' },
    };
    const post = await h.settled(
      await h.publishNow(bakery, '10% off every loaf', [], { targets: [{ channelId: bakery, options }] }),
    );
    expect(post.status).toBe('published');
    const [onGoogle] = postsWith('10% off every loaf');
    expect(onGoogle).toEqual(
      expect.objectContaining({
        topicType: 'OFFER',
        offer: options.offer,
        callToAction: { actionType: 'CALL' },
        event: expect.objectContaining({ title: 'Spring sale' }),
      }),
    );
  });

  it('refuses what a topic type needs or forbids at targets[0].options.<path>, before Google is called', async () => {
    const posts = google.posts.length;
    const problems = async (options: Record<string, unknown>) => {
      const res = await t.request('POST', '/api/posts', {
        key,
        body: { content: 'checked', channelIds: [bakery], targets: [{ channelId: bakery, options }], publishNow: true },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      return res.body.details.map((d: { field: string; message: string }) => [d.field, d.message]);
    };
    expect(await problems({ topicType: 'EVENT' })).toEqual([
      ['targets[0].options.event', expect.stringContaining('is required')],
    ]);
    expect(await problems({ topicType: 'OFFER', event: { title: 'Sale', schedule: { start: '2027-04-01' } } })).toEqual(
      [['targets[0].options.event.schedule.end', expect.stringContaining('is required')]],
    );
    expect(await problems({ offer: { couponCode: 'X' } })).toEqual([
      ['targets[0].options.topicType', expect.stringContaining('is required')],
    ]);
    expect(await problems({ callToAction: { actionType: 'ORDER' } })).toEqual([
      ['targets[0].options.callToAction.url', expect.stringContaining('is required')],
    ]);
    expect(
      await problems({
        topicType: 'EVENT',
        event: { title: 'x', schedule: { start: '2027-04-02', end: '2027-04-01' } },
      }),
    ).toEqual([['targets[0].options.event.schedule.end', expect.stringContaining('must not be before')]]);
    expect(google.posts.length).toBe(posts);
  });

  it('attaches one photo, which Google downloads from our signed URL', async () => {
    const media = await h.uploadPng(300, 300);
    const post = await h.settled(await h.publishNow(bakery, 'Our new oven', [media]));
    expect(post.status).toBe('published');
    const [onGoogle] = postsWith('Our new oven');
    expect(onGoogle.photo).toEqual(expect.objectContaining({ type: 'image/png' }));
    expect(onGoogle.photo!.url.startsWith(`${h.publicBaseUrl}/api/media/`)).toBe(true);
  });

  it("fails the target with CONTENT_REJECTED and Google's reason when the location may not post", async () => {
    const post = await h.settled(await h.publishNow(shop, 'from an unverified shop'));
    expect(post.status).toBe('failed');
    expect(post.targets[0].attempts).toBe(1);
    expect(post.targets[0].error).toEqual({
      code: 'CONTENT_REJECTED',
      message: expect.stringContaining('The location is not verified'),
    });
  });

  it('refuses a summary over 1,500 characters before it reaches Google', async () => {
    const res = await t.request('POST', '/api/posts/validate', {
      key,
      body: { content: 'x'.repeat(1501), channelIds: [bakery] },
    });
    expect(res.body.valid).toBe(false);
    expect(JSON.stringify(res.body)).toContain('allows 1500');
  });

  it('retries after a 429 quota answer and posts once', async () => {
    google.failNext(1, 429, GOOGLE_BUSINESS_ROUTES.createPost);
    const post = await h.settled(await h.publishNow(bakery, 'quota hit'));
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    const calls = google.requests.filter((r) => r.route === GOOGLE_BUSINESS_ROUTES.createPost).slice(-2);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(900);
    expect(postsWith('quota hit')).toHaveLength(1);
  });

  it("finds the post on the location when Google's answer was lost, and posts nothing more", async () => {
    google.failAfterCreateNext(503);
    const post = await h.settled(await h.publishNow(bakery, 'answer lost on Google'));
    expect(post.status).toBe('published');
    expect(post.targets[0].attempts).toBe(2);
    expect(postsWith('answer lost on Google')).toHaveLength(1);
    expect(post.targets[0].platformPostId).toBe(postsWith('answer lost on Google')[0].name);
  });

  it('reports no figures: Google offers none for local posts, and is not asked', async () => {
    const id = await h.publishNow(bakery, 'not measured');
    expect((await h.settled(id)).status).toBe('published');
    const before = google.requests.length;
    const analytics = await h.analytics(id);
    expect(analytics.targets[0].metrics).toEqual({
      likes: null,
      reposts: null,
      replies: null,
      quotes: null,
      impressions: null,
    });
    expect(google.requests.length).toBe(before);
  });

  it('keeps the stored refresh token when a reconnect brings none, and refreshes with it', async () => {
    const stored = (await h.storedCredentials(bakery)).refreshToken;
    expect(typeof stored).toBe('string');
    google.withholdNextRefreshToken();
    const connectionId = (await h.authorize()).get('connectionId')!;
    const again = await h.choose(connectionId, [BAKERY]);
    expect(again.body.data[0].id).toBe(bakery);
    const after = await h.storedCredentials(bakery);
    expect(after.refreshToken).toBe(stored);

    google.expireAccessTokens();
    await h.expireStoredToken(bakery);
    const refreshes = google.refreshCount;
    expect((await h.settled(await h.publishNow(bakery, 'after the reconnect'))).status).toBe('published');
    expect(google.refreshCount).toBe(refreshes + 1);
  });
});
