import { createHash, randomBytes } from 'node:crypto';
import { FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { googleBusinessDescription } from './descriptions/networks';
import { recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local Google for Business Profile: the OAuth 2.0 consent (consents at once; a refresh token
 * only with `access_type=offline`, on the first consent or with `prompt=consent`, as Google
 * documents), the token endpoint (client credentials in the form, PKCE S256, refresh tokens not
 * rotated), the Account Management API (accounts.list), the Business Information API
 * (accounts.locations.list, `readMask` required) and the v4 API's local posts (create and list;
 * the photo is downloaded from `media[].sourceUrl`, as Google does; EVENT and OFFER posts need their
 * event, offers and call-to-action buttons are checked as Google does). The scope business.manage is
 * enforced; errors use Google's `{error: {code, message, status, details}}` bodies. One server
 * answers all hosts (the adapter's API override points the three APIs at it).
 */
export const GOOGLE_BUSINESS_ROUTES = {
  authorize: 'GET /o/oauth2/v2/auth',
  token: 'POST /token',
  revoke: 'POST /revoke',
  accounts: 'GET /v1/accounts',
  locations: 'GET /v1/accounts/:id/locations',
  createPost: 'POST /v4/accounts/:a/locations/:l/localPosts',
  listPosts: 'GET /v4/accounts/:a/locations/:l/localPosts',
} as const;

export const GBP_SCOPE = 'https://www.googleapis.com/auth/business.manage';

export interface FakeGbpAccount {
  id: string;
  accountName: string;
  type?: 'PERSONAL' | 'LOCATION_GROUP' | 'ORGANIZATION';
  locations: FakeGbpLocation[];
}

export interface FakeGbpLocation {
  id: string;
  title: string;
  locality?: string;
  /** Unverified locations cannot post. Default true. */
  verified?: boolean;
}

export interface FakeLocalPost {
  name: string;
  locationId: string;
  summary: string;
  topicType: string;
  callToAction: unknown;
  languageCode: string | null;
  event: unknown;
  offer: unknown;
  /** The photo as Google downloaded it. */
  photo: { url: string; type: string; bytes: number } | null;
  createTime: string;
}

export interface GoogleBusinessFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  accessTokenTtlSeconds?: number;
  accounts?: FakeGbpAccount[];
  /** Retry-After (seconds) sent with injected 429 answers; none by default (Google sends none). */
  retryAfterSeconds?: number;
}

const googleError = (code: number, status: string, message: string, details?: unknown[]): FakeReply => ({
  status: code,
  body: { error: { code, message, status, ...(details ? { details } : {}) } },
});
const UNAUTHENTICATED = googleError(
  401,
  'UNAUTHENTICATED',
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
);
const validationError = (field: string, message: string) =>
  googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
    {
      '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
      errorDetails: [{ code: 3, field, message }],
    },
  ]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const sniff = (b: Buffer) =>
  b.subarray(0, 8).equals(PNG)
    ? 'image/png'
    : b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff
      ? 'image/jpeg'
      : 'unknown';

interface Grant {
  redirectUri: string;
  challenge: string;
  scope: string;
  refresh: boolean;
  used: boolean;
}

export class GoogleBusinessFake extends FakeHttpServer {
  readonly accounts: FakeGbpAccount[];
  readonly posts: FakeLocalPost[] = [];
  readonly authorizations: Array<Record<string, string>> = [];
  refreshCount = 0;
  readonly clientId: string;
  readonly clientSecret: string;
  private readonly accessTokens = new Map<string, { scope: string; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, string>();
  private readonly grants = new Map<string, Grant>();
  private consented = false;
  private nextId = 5_000_000_000_000_000_000n;
  private failAfterCreate: number[] = [];

  constructor(private readonly opts: GoogleBusinessFakeOptions = {}) {
    super(opts);
    this.clientId = opts.clientId ?? '1234567890-gbp.apps.googleusercontent.com';
    this.clientSecret = opts.clientSecret ?? 'GOCSPX-gbp-secret';
    this.accounts = opts.accounts ?? [
      {
        id: '107000000000000000001',
        accountName: 'Contract Owner',
        type: 'PERSONAL',
        locations: [{ id: '4000000000000000001', title: 'Contract Bakery', locality: 'Lyon' }],
      },
    ];
    // Every API call is checked against the Business Profile APIs' descriptions; the consent page and
    // the token endpoint (Google's OAuth 2.0 for web server applications) pass unchecked.
    this.checkAgainst(googleBusinessDescription(), {
      refuse: (problems) => ({
        status: 400,
        body: {
          error: {
            code: 400,
            message: problems.join('; '),
            status: 'INVALID_ARGUMENT',
            errors: problems.map((message) => ({ message, domain: 'global', reason: 'badRequest' })),
          },
        },
      }),
      unchecked: (req) =>
        req.route === GOOGLE_BUSINESS_ROUTES.authorize ||
        req.route === GOOGLE_BUSINESS_ROUTES.token ||
        req.route === GOOGLE_BUSINESS_ROUTES.revoke,
    });
  }

  appEnv(): Record<string, string> {
    return {
      GOOGLE_BUSINESS_CLIENT_ID: this.clientId,
      GOOGLE_BUSINESS_CLIENT_SECRET: this.clientSecret,
      GOOGLE_BUSINESS_AUTH_BASE_URL: this.baseUrl,
      GOOGLE_BUSINESS_API_BASE_URL: this.baseUrl,
      GOOGLE_BUSINESS_TOKEN_BASE_URL: this.baseUrl,
    };
  }

  issueToken(scope = GBP_SCOPE): string {
    const token = `ya29.${randomBytes(16).toString('base64url')}`;
    this.accessTokens.set(token, { scope, expiresAt: Date.now() + (this.opts.accessTokenTtlSeconds ?? 3599) * 1000 });
    this.lastAccessToken = token;
    return token;
  }

  /** The access token issued last, and the refresh token of the last code exchange. */
  lastAccessToken = '';
  lastRefreshToken = '';

  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];

  /**
   * POST /revoke (Google's OAuth 2.0 for web server applications, "Revoking a token"): `token` is an
   * access or refresh token; Google removes the app's grant, so every token of the (one) account stops
   * working. An unknown token is 400 `invalid_token`.
   */
  private revoke(req: FakeRequest): FakeReply {
    const token = recordRevocation(req, this.revocations).form.token ?? '';
    if (!this.accessTokens.has(token) && !this.refreshTokens.has(token)) {
      return { status: 400, body: { error: 'invalid_token', error_description: 'Token expired or revoked' } };
    }
    this.revokeAll();
    return { status: 200, body: {} };
  }

  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = Date.now() - 1000;
  }

  /** The refresh tokens issued so far. */
  issuedRefreshTokens(): string[] {
    return [...this.refreshTokens.keys()];
  }

  /** Google issues no refresh token on the next consent (as for an app that asks without prompt=consent). */
  withholdNextRefreshToken(): void {
    this.withhold = true;
  }

  failAfterCreateNext(status = 503): void {
    this.failAfterCreate.push(status);
  }

  setCounts(): void {
    // Google reports no figures of a local post: there is nothing to set.
  }

  private withhold = false;

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/o/oauth2/v2/auth') return GOOGLE_BUSINESS_ROUTES.authorize;
    if (method === 'POST' && path === '/token') return GOOGLE_BUSINESS_ROUTES.token;
    if (method === 'POST' && path === '/revoke') return GOOGLE_BUSINESS_ROUTES.revoke;
    if (method === 'GET' && path === '/v1/accounts') return GOOGLE_BUSINESS_ROUTES.accounts;
    if (method === 'GET' && /^\/v1\/accounts\/\d+\/locations$/.test(path)) return GOOGLE_BUSINESS_ROUTES.locations;
    if (/^\/v4\/accounts\/\d+\/locations\/\d+\/localPosts$/.test(path)) {
      if (method === 'POST') return GOOGLE_BUSINESS_ROUTES.createPost;
      if (method === 'GET') return GOOGLE_BUSINESS_ROUTES.listPosts;
    }
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHENTICATED;
    if (status === 429) {
      const reply = googleError(
        429,
        'RESOURCE_EXHAUSTED',
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'mybusiness.googleapis.com'.",
      );
      return this.opts.retryAfterSeconds !== undefined
        ? { ...reply, headers: { 'retry-after': String(this.opts.retryAfterSeconds) } }
        : reply;
    }
    if (status === 400) return validationError('summary', 'The post violates the content policy.');
    if (status === 403) return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
    return googleError(status, 'UNAVAILABLE', 'The service is currently unavailable.');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === GOOGLE_BUSINESS_ROUTES.authorize) return this.authorize(req);
    if (req.route === GOOGLE_BUSINESS_ROUTES.token) return this.token(req);
    if (req.route === GOOGLE_BUSINESS_ROUTES.revoke) return this.revoke(req);
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    if (!entry || entry.expiresAt <= Date.now()) return UNAUTHENTICATED;
    if (!entry.scope.split(' ').includes(GBP_SCOPE)) {
      return googleError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.');
    }
    const parts = req.path.split('/');
    switch (req.route) {
      case GOOGLE_BUSINESS_ROUTES.accounts:
        return {
          status: 200,
          body: {
            accounts: this.accounts.map((a) => ({
              name: `accounts/${a.id}`,
              accountName: a.accountName,
              type: a.type ?? 'PERSONAL',
              verificationState: 'VERIFIED',
            })),
          },
        };
      case GOOGLE_BUSINESS_ROUTES.locations: {
        const account = this.accounts.find((a) => a.id === parts[3]);
        if (!account) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
        const mask = (req.url.searchParams.get('readMask') ?? '').split(',').filter(Boolean);
        if (mask.length === 0) return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.');
        const locations = account.locations.map((l) => {
          const full: Record<string, unknown> = {
            name: `locations/${l.id}`,
            title: l.title,
            storefrontAddress: { regionCode: 'FR', locality: l.locality ?? '', addressLines: ['1 rue du Fake'] },
            metadata: { mapsUri: `https://maps.google.com/maps?cid=${l.id}`, hasVoiceOfMerchant: l.verified !== false },
          };
          return Object.fromEntries(Object.entries(full).filter(([k]) => mask.includes(k)));
        });
        return { status: 200, body: { locations, totalSize: locations.length } };
      }
      case GOOGLE_BUSINESS_ROUTES.createPost:
        return this.createPost(req, parts[3], parts[5]);
      case GOOGLE_BUSINESS_ROUTES.listPosts: {
        const size = Math.min(Number(req.url.searchParams.get('pageSize') ?? 20) || 20, 100);
        const localPosts = this.posts
          .filter((p) => p.locationId === parts[5])
          .reverse()
          .slice(0, size)
          .map((p) => this.postBody(p, parts[3]));
        return { status: 200, body: { localPosts } };
      }
      default:
        return googleError(404, 'NOT_FOUND', `No route ${req.method} ${req.path}`);
    }
  }

  private location(accountId: string, locationId: string): FakeGbpLocation | undefined {
    return this.accounts.find((a) => a.id === accountId)?.locations.find((l) => l.id === locationId);
  }

  private async createPost(req: FakeRequest, accountId: string, locationId: string): Promise<FakeReply> {
    const location = this.location(accountId, locationId);
    if (!location) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
    if (location.verified === false) {
      return googleError(400, 'FAILED_PRECONDITION', 'Precondition check failed.', [
        {
          '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
          errorDetails: [{ code: 9, field: 'location', message: 'The location is not verified and cannot post' }],
        },
      ]);
    }
    let body: {
      summary?: unknown;
      topicType?: unknown;
      callToAction?: unknown;
      languageCode?: unknown;
      event?: { title?: unknown; schedule?: { startDate?: unknown; endDate?: unknown } };
      offer?: unknown;
      media?: Array<{ mediaFormat?: unknown; sourceUrl?: unknown }>;
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    const topicType = typeof body.topicType === 'string' ? body.topicType : 'STANDARD';
    if (!['STANDARD', 'EVENT', 'OFFER', 'ALERT'].includes(topicType)) {
      return validationError('topic_type', 'Invalid topic type');
    }
    // Events and offers need their event (an offer runs over its event's dates), as Google documents.
    if (topicType === 'EVENT' || topicType === 'OFFER') {
      const e = body.event;
      if (!e || typeof e.title !== 'string' || !e.title)
        return validationError('event.title', 'Event title is required');
      if (!e.schedule?.startDate || !e.schedule.endDate) {
        return validationError('event.schedule', 'Event schedule needs a start and an end date');
      }
    } else if (body.event !== undefined) {
      return validationError('event', 'An event is only allowed for EVENT and OFFER posts');
    }
    if (body.offer !== undefined && topicType !== 'OFFER') {
      return validationError('offer', 'An offer is only allowed for OFFER posts');
    }
    if (body.callToAction !== undefined) {
      const cta = body.callToAction as { actionType?: unknown; url?: unknown };
      const types = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'];
      if (typeof cta.actionType !== 'string' || !types.includes(cta.actionType)) {
        return validationError('call_to_action.action_type', 'Invalid action type');
      }
      if (cta.actionType !== 'CALL' && typeof cta.url !== 'string') {
        return validationError('call_to_action.url', 'A URL is required for this action type');
      }
    }
    const summary = typeof body.summary === 'string' ? body.summary : '';
    if ([...summary].length > 1500) return validationError('summary', 'Summary is longer than 1500 characters');
    const media = body.media ?? [];
    if (summary === '' && media.length === 0)
      return validationError('summary', 'A standard post needs a summary or a photo');
    if (media.length > 1) return validationError('media', 'At most one media item per post');
    let photo: FakeLocalPost['photo'] = null;
    if (media.length === 1) {
      const [item] = media;
      if (item.mediaFormat !== 'PHOTO' || typeof item.sourceUrl !== 'string') {
        return validationError('media.source_url', 'A PHOTO with a sourceUrl is required');
      }
      const res = await fetch(item.sourceUrl).catch(() => null);
      const bytes = res?.ok ? Buffer.from(await res.arrayBuffer()) : Buffer.alloc(0);
      const type = sniff(bytes);
      if (type === 'unknown') return validationError('media.source_url', 'Fetching image failed');
      photo = { url: item.sourceUrl, type, bytes: bytes.length };
    }
    const post: FakeLocalPost = {
      name: `accounts/${accountId}/locations/${locationId}/localPosts/${this.nextId++}`,
      locationId,
      summary,
      topicType,
      callToAction: body.callToAction ?? null,
      languageCode: typeof body.languageCode === 'string' ? body.languageCode : null,
      event: body.event ?? null,
      offer: body.offer ?? null,
      photo,
      createTime: new Date().toISOString(),
    };
    this.posts.push(post);
    await this.waitIfHeld();
    const fail = this.failAfterCreate.shift();
    if (fail !== undefined) return this.injectedFailure(fail);
    return { status: 200, body: this.postBody(post, accountId) };
  }

  private postBody(p: FakeLocalPost, accountId: string) {
    return {
      name: p.name,
      summary: p.summary,
      topicType: p.topicType,
      ...(p.languageCode ? { languageCode: p.languageCode } : {}),
      ...(p.callToAction ? { callToAction: p.callToAction } : {}),
      ...(p.event ? { event: p.event } : {}),
      ...(p.offer ? { offer: p.offer } : {}),
      state: 'LIVE',
      createTime: p.createTime,
      updateTime: p.createTime,
      searchUrl: `https://local.google.com/place?id=${p.locationId}&use=posts&lpsid=${p.name.split('/').pop()}`,
      ...(p.photo
        ? { media: [{ mediaFormat: 'PHOTO', googleUrl: `https://lh3.googleusercontent.com/${accountId}` }] }
        : {}),
    };
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId) return { status: 401, raw: Buffer.from('Error 401: invalid_client') };
    if (
      q.response_type !== 'code' ||
      !q.redirect_uri ||
      !q.scope ||
      q.code_challenge_method !== 'S256' ||
      !q.code_challenge
    ) {
      return { status: 400, raw: Buffer.from('Error 400: invalid_request') };
    }
    const target = new URL(q.redirect_uri);
    if (q.state) target.searchParams.set('state', q.state);
    const code = `4/0A${randomBytes(20).toString('base64url')}`;
    // Google: a refresh token with offline access, on the first consent or when consent is prompted.
    const refresh =
      q.access_type === 'offline' &&
      (!this.consented || (q.prompt ?? '').split(' ').includes('consent')) &&
      !this.withhold;
    this.withhold = false;
    this.consented = true;
    this.grants.set(code, {
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      scope: q.scope,
      refresh,
      used: false,
    });
    target.searchParams.set('code', code);
    target.searchParams.set('scope', q.scope);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString());
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Unauthorized' } };
    }
    const invalidGrant = { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
    const ttl = this.opts.accessTokenTtlSeconds ?? 3599;
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) return invalidGrant;
      if (
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') !== grant.challenge
      ) {
        return invalidGrant;
      }
      grant.used = true;
      const body: Record<string, unknown> = {
        access_token: this.issueToken(grant.scope),
        expires_in: ttl,
        scope: grant.scope,
        token_type: 'Bearer',
      };
      if (grant.refresh) {
        const refreshToken = `1//0g${randomBytes(20).toString('base64url')}`;
        this.refreshTokens.set(refreshToken, grant.scope);
        this.lastRefreshToken = refreshToken;
        body.refresh_token = refreshToken;
      }
      return { status: 200, body };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const scope = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!scope)
        return {
          status: 400,
          body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
        };
      this.refreshCount++;
      return {
        status: 200,
        body: { access_token: this.issueToken(scope), expires_in: ttl, scope, token_type: 'Bearer' },
      };
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' } };
  }
}

/** GoogleBusinessFake for the shared provider contract suite: one account managing one location. */
export function contractFake(): ProviderContractFake {
  const fake = new GoogleBusinessFake();
  const account = fake.accounts[0];
  const described = describedContract(fake, () => ({
    // The local post as the adapter creates it, `summary` renamed.
    method: 'POST',
    url: `${fake.baseUrl}/v4/accounts/${account.id}/locations/${account.locations[0].id}/localPosts`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.issueToken()}` },
    body: JSON.stringify({ text: 'renamed field', topicType: 'STANDARD' }),
    renamed: { from: 'summary', to: 'text' },
  }));
  return oauthContractFake(fake, {
    described,
    revocation: {
      requests: () => fake.revocations,
      lastAccessToken: () => fake.lastAccessToken,
      // The refresh token the connection got: revoking it ends the whole grant.
      expected: () => [{ method: 'POST', path: '/revoke', form: { token: fake.lastRefreshToken } }],
    },
    publishRoute: GOOGLE_BUSINESS_ROUTES.createPost,
    rejectStatus: 400,
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.name,
        text: p.summary,
        mediaCount: p.photo ? 1 : 0,
        inReplyTo: null,
      })),
  });
}
