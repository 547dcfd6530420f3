import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { FakeVideo, FakeVideoOptions, FakeVideoProcessing } from './fake-video-processing';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { xDescription } from './descriptions/networks';
import { basicOf, basicPair, recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local X: OAuth 2.0 authorization code with PKCE (consent page that consents at once), the token
 * endpoint with refresh-token rotation, API v2 users/me, tweets, a user's timeline, the chunked media
 * upload (initialize / append / finalize, and STATUS for `tweet_video` processing), media metadata (alt
 * text) and public_metrics. Errors use X's v2 problem bodies.
 */
export const X_ROUTES = {
  authorize: 'GET /i/oauth2/authorize',
  token: 'POST /2/oauth2/token',
  revoke: 'POST /2/oauth2/revoke',
  me: 'GET /2/users/me',
  createTweet: 'POST /2/tweets',
  getTweet: 'GET /2/tweets/:id',
  timeline: 'GET /2/users/:id/tweets',
  mediaInit: 'POST /2/media/upload/initialize',
  mediaAppend: 'POST /2/media/upload/:id/append',
  mediaFinalize: 'POST /2/media/upload/:id/finalize',
  mediaMetadata: 'POST /2/media/metadata',
  mediaStatus: 'GET /2/media/upload',
} as const;

/** X's video caps (media_category tweet_video): 512 MB and 140 s. */
export const X_FAKE_MAX_VIDEO_BYTES = 512 * 1024 * 1024;

export interface XFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds (X: 7200). */
  accessTokenTtlSeconds?: number;
  /** Seconds until x-rate-limit-reset on injected 429 answers. Default 2. */
  rateLimitResetSeconds?: number;
  /** Delay of the token endpoint's refresh answer, in ms (to widen races). Default 0. */
  refreshLatencyMs?: number;
  /** Video processing: polls before ready (default 2), longest video (default 140 s). */
  video?: FakeVideoOptions;
}

export interface FakeXUser {
  id: string;
  username: string;
  name: string;
}

export interface FakeTweet {
  id: string;
  authorId: string;
  text: string;
  mediaIds: string[];
  /** The tweet this one replies to (`reply.in_reply_to_tweet_id`), null for a top-level tweet. */
  inReplyToId: string | null;
  createdAt: string;
  counts: FakeCounts & { impressions: number };
}

interface AccessToken {
  userId: string;
  expiresAt: number;
}

interface Grant {
  code: string;
  userId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  used: boolean;
}

interface Media {
  id: string;
  userId: string;
  totalBytes: number;
  received: number;
  finalized: boolean;
  /** Set by POST /2/media/metadata (`metadata.alt_text.text`). */
  altText: string | null;
  category: string;
  mediaType: string;
  /** A video's segments as received (images are counted only). */
  segments: Buffer[];
  /** A finalized video, in processing. */
  video: FakeVideo | null;
}

const problem = (status: number, title: string, detail: string) => ({
  status,
  body: { title, detail, type: 'about:blank', status },
});
const UNAUTHORIZED = problem(401, 'Unauthorized', 'Unauthorized');

export class XFake extends FakeHttpServer {
  readonly users: FakeXUser[] = [{ id: '1500000000000000001', username: 'contract_x', name: 'Contract X' }];
  readonly tweets: FakeTweet[] = [];
  /** Authorization requests received (query parameters), oldest first. */
  readonly authorizations: Array<Record<string, string>> = [];
  /** Refresh grants answered with new tokens. */
  refreshCount = 0;
  readonly clientId: string;
  readonly clientSecret: string;
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, string>(); // token -> userId
  private readonly grants = new Map<string, Grant>();
  private readonly media = new Map<string, Media>();
  /** Each upload's `media_type` and `media_category`, in the order they were initialized. */
  get uploads(): { mediaType: string; category: string }[] {
    return [...this.media.values()].map((m) => ({ mediaType: m.mediaType, category: m.category }));
  }
  private nextId = 1_800_000_000_000_000_000n;
  private denyNextConsent = false;
  private failAfterCreate: Array<{ status: number; when?: (text: string) => boolean }> = [];
  /** Videos X received (finalized `tweet_video` uploads) and their processing. */
  readonly videos: FakeVideoProcessing;
  /** `initialize` calls of `tweet_video` uploads (a video uploaded twice counts twice). */
  videoInits = 0;

  constructor(private readonly opts: XFakeOptions = {}) {
    super(opts);
    this.videos = new FakeVideoProcessing({ maxDurationSeconds: 140, ...opts.video });
    this.clientId = opts.clientId ?? 'x-client-id';
    this.clientSecret = opts.clientSecret ?? 'x-client-secret';
    // Every API call is checked against X's OpenAPI document; X answers a malformed request 400
    // "Invalid Request" with the problems. The OAuth endpoints (authorize page, token exchange) are
    // documented apart from the API's document, so they pass unchecked.
    this.checkAgainst(xDescription(), {
      refuse: (problems) => ({
        status: 400,
        body: {
          errors: problems.map((message) => ({ message })),
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          type: 'https://api.x.com/2/problems/invalid-request',
        },
      }),
      unchecked: (req) =>
        req.route === X_ROUTES.authorize || req.route === X_ROUTES.token || req.route === X_ROUTES.revoke,
    });
  }

  /** Environment for the app: client credentials and both hosts pointed at this fake. */
  appEnv(): Record<string, string> {
    return {
      X_CLIENT_ID: this.clientId,
      X_CLIENT_SECRET: this.clientSecret,
      X_AUTH_BASE_URL: this.baseUrl,
      X_API_BASE_URL: this.baseUrl,
    };
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The access token issued last, and the refresh token issued last. */
  lastAccessToken = '';
  lastRefreshToken = '';

  /** Issues an access token for the first user directly (for adapter-level tests). */
  issueToken(userId = this.users[0].id, token = `at-${randomBytes(8).toString('hex')}`): string {
    this.lastAccessToken = token;
    this.accessTokens.set(token, { userId, expiresAt: Date.now() + (this.opts.accessTokenTtlSeconds ?? 7200) * 1000 });
    return token;
  }

  /**
   * The test hook standing in for a user who consents: requests the authorization URL and returns
   * the Location it redirects to (our callback with `code` and `state`, or `error`).
   */
  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  /** The next consent is refused (`error=access_denied`). */
  denyNext(): void {
    this.denyNextConsent = true;
  }

  /** Every access token expires now (refresh tokens keep working). */
  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = Date.now() - 1000;
  }

  /** Every token, access and refresh, stops working. */
  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** Refresh tokens stop working; access tokens keep working until they expire. */
  revokeRefreshTokens(): void {
    this.refreshTokens.clear();
  }

  /**
   * The next tweet (whose text `when` accepts, when given) is created, then answered with `status`
   * (the outcome is unknown to the client).
   */
  failAfterCreateNext(status = 503, when?: (text: string) => boolean): void {
    this.failAfterCreate.push({ status, when });
  }

  setCounts(id: string, counts: Partial<FakeCounts & { impressions: number }>): void {
    const tweet = this.tweets.find((t) => t.id === id);
    if (!tweet) throw new Error(`No tweet ${id}`);
    Object.assign(tweet.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/i/oauth2/authorize') return X_ROUTES.authorize;
    if (method === 'POST' && path === '/2/oauth2/token') return X_ROUTES.token;
    if (method === 'POST' && path === '/2/oauth2/revoke') return X_ROUTES.revoke;
    if (method === 'GET' && path === '/2/users/me') return X_ROUTES.me;
    if (method === 'POST' && path === '/2/tweets') return X_ROUTES.createTweet;
    if (method === 'GET' && /^\/2\/tweets\/[^/]+$/.test(path)) return X_ROUTES.getTweet;
    if (method === 'GET' && /^\/2\/users\/[^/]+\/tweets$/.test(path)) return X_ROUTES.timeline;
    if (method === 'POST' && path === '/2/media/upload/initialize') return X_ROUTES.mediaInit;
    if (method === 'POST' && /^\/2\/media\/upload\/[^/]+\/append$/.test(path)) return X_ROUTES.mediaAppend;
    if (method === 'POST' && /^\/2\/media\/upload\/[^/]+\/finalize$/.test(path)) return X_ROUTES.mediaFinalize;
    if (method === 'POST' && path === '/2/media/metadata') return X_ROUTES.mediaMetadata;
    if (method === 'GET' && path === '/2/media/upload') return X_ROUTES.mediaStatus;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHORIZED;
    if (status === 429) {
      const reset = Math.floor(Date.now() / 1000) + (this.opts.rateLimitResetSeconds ?? 2);
      return {
        ...problem(429, 'Too Many Requests', 'Too Many Requests'),
        headers: { 'x-rate-limit-limit': '100', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
      };
    }
    if (status === 403) return problem(403, 'Forbidden', 'You are not permitted to perform this action.');
    if (status === 400) return problem(400, 'Invalid Request', 'One or more parameters to your request was invalid.');
    return problem(status, 'Service Unavailable', 'Service Unavailable');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === X_ROUTES.authorize) return this.authorize(req);
    if (req.route === X_ROUTES.token) return this.token(req);
    if (req.route === X_ROUTES.revoke) return this.revoke(req);
    const userId = this.authenticate(req);
    if (!userId) return UNAUTHORIZED;
    switch (req.route) {
      case X_ROUTES.me: {
        const user = this.users.find((u) => u.id === userId)!;
        return {
          status: 200,
          body: {
            data: { ...user, profile_image_url: `${this.baseUrl}/avatars/${user.id}.png` },
          },
        };
      }
      case X_ROUTES.createTweet:
        return this.createTweet(req, userId);
      case X_ROUTES.getTweet: {
        const tweet = this.tweets.find((t) => t.id === req.path.split('/')[3]);
        if (!tweet) {
          return {
            status: 200,
            body: { errors: [{ title: 'Not Found Error', detail: 'Could not find tweet', type: 'about:blank' }] },
          };
        }
        return { status: 200, body: { data: this.tweetJson(tweet, this.fieldsOf(req)) } };
      }
      case X_ROUTES.timeline: {
        const authorId = req.path.split('/')[3];
        const start = req.url.searchParams.get('start_time');
        const max = Math.min(Number(req.url.searchParams.get('max_results') ?? 10), 100);
        const items = this.tweets
          .filter((t) => t.authorId === authorId && (!start || t.createdAt >= start))
          .reverse()
          .slice(0, max);
        return {
          status: 200,
          body: {
            data: items.map((t) => this.tweetJson(t, this.fieldsOf(req))),
            meta: { result_count: items.length },
          },
        };
      }
      case X_ROUTES.mediaInit:
        return this.mediaInit(req, userId);
      case X_ROUTES.mediaAppend:
        return this.mediaAppend(req, userId);
      case X_ROUTES.mediaFinalize: {
        const media = this.media.get(req.path.split('/')[4]);
        if (!media || media.userId !== userId) return problem(400, 'Invalid Request', 'Unknown media_id');
        if (media.received !== media.totalBytes) {
          return problem(
            400,
            'Invalid Request',
            `Segments total ${media.received} bytes, expected ${media.totalBytes}`,
          );
        }
        media.finalized = true;
        const data: Record<string, unknown> = {
          id: media.id,
          media_key: `3_${media.id}`,
          size: media.totalBytes,
          expires_after_secs: 86400,
        };
        if (media.category === 'tweet_video') {
          media.video = this.videos.receive(Buffer.concat(media.segments), media.mediaType, media.id);
          media.segments = [];
          data.processing_info = { state: 'pending', check_after_secs: 1 };
        }
        return { status: 200, body: { data } };
      }
      case X_ROUTES.mediaStatus: {
        if (req.url.searchParams.get('command') !== 'STATUS') {
          return problem(400, 'Invalid Request', 'command must be STATUS');
        }
        const media = this.media.get(req.url.searchParams.get('media_id') ?? '');
        if (!media || media.userId !== userId) return problem(400, 'Invalid Request', 'Unknown media_id');
        const data: Record<string, unknown> = { id: media.id, media_key: `3_${media.id}` };
        if (media.video) await this.videos.beforeStatus();
        if (media.video) data.processing_info = this.processingInfo(this.videos.poll(media.video));
        return { status: 200, body: { data } };
      }
      case X_ROUTES.mediaMetadata:
        return this.mediaMetadata(req, userId);
      default:
        return problem(404, 'Not Found', `No route ${req.method} ${req.path}`);
    }
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId) return { status: 400, raw: Buffer.from('Unknown client_id') };
    if (q.response_type !== 'code' || q.code_challenge_method !== 'S256' || !q.code_challenge || !q.redirect_uri) {
      return { status: 400, raw: Buffer.from('Invalid authorization request') };
    }
    const target = new URL(q.redirect_uri);
    if (q.state) target.searchParams.set('state', q.state);
    if (this.denyNextConsent) {
      this.denyNextConsent = false;
      target.searchParams.set('error', 'access_denied');
      return { status: 302, headers: { location: target.toString() } };
    }
    const code = `code-${randomBytes(12).toString('base64url')}`;
    this.grants.set(code, {
      code,
      userId: this.users[0].id,
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      scope: q.scope ?? '',
      used: false,
    });
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.toString() } };
  }

  private async token(req: FakeRequest): Promise<FakeReply> {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [];
    if (id !== this.clientId || secret !== this.clientSecret) {
      return {
        status: 401,
        body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
      };
    }
    const form = new URLSearchParams(req.body.toString());
    const invalid = {
      status: 400,
      body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
    };
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) return invalid;
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return invalid;
      grant.used = true;
      return { status: 200, body: this.tokens(grant.userId, grant.scope) };
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (this.opts.refreshLatencyMs) await new Promise((r) => setTimeout(r, this.opts.refreshLatencyMs));
      const old = form.get('refresh_token') ?? '';
      const userId = this.refreshTokens.get(old);
      if (!userId) return invalid;
      this.refreshTokens.delete(old); // rotation: a refresh token works once
      this.refreshCount++;
      return { status: 200, body: this.tokens(userId, 'tweet.read tweet.write users.read media.write offline.access') };
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' } };
  }

  /**
   * POST /2/oauth2/revoke (RFC 7009): a confidential client authenticates with Basic; `token` with its
   * `token_type_hint` stops working; X answers `{"revoked": true}` (also for a token it no longer knows).
   */
  private revoke(req: FakeRequest): FakeReply {
    const sent = recordRevocation(req, this.revocations);
    const pair = basicPair(sent.authorization);
    if (!pair || pair[0] !== this.clientId || pair[1] !== this.clientSecret) {
      return {
        status: 401,
        body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
      };
    }
    const token = sent.form.token;
    if (!token)
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'Missing required parameter [token].' },
      };
    this.accessTokens.delete(token);
    this.refreshTokens.delete(token);
    return { status: 200, body: { revoked: true } };
  }

  private tokens(userId: string, scope: string) {
    const ttl = this.opts.accessTokenTtlSeconds ?? 7200;
    const accessToken = this.issueToken(userId);
    const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
    this.refreshTokens.set(refreshToken, userId);
    this.lastRefreshToken = refreshToken;
    return { token_type: 'bearer', expires_in: ttl, access_token: accessToken, scope, refresh_token: refreshToken };
  }

  private authenticate(req: FakeRequest): string | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry.userId : null;
  }

  private async createTweet(req: FakeRequest, userId: string): Promise<FakeReply> {
    let body: { text?: unknown; media?: { media_ids?: unknown }; reply?: { in_reply_to_tweet_id?: unknown } };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return problem(400, 'Invalid Request', 'Body is not JSON');
    }
    const text = typeof body.text === 'string' ? body.text : '';
    const mediaIds = Array.isArray(body.media?.media_ids) ? (body.media.media_ids as string[]) : [];
    if (!text && mediaIds.length === 0) return problem(400, 'Invalid Request', 'text or media is required');
    for (const id of mediaIds) {
      const media = this.media.get(id);
      if (!media || !media.finalized || media.userId !== userId || (media.video && media.video.state !== 'ready')) {
        return problem(400, 'Invalid Request', `Your media IDs are invalid.`);
      }
    }
    const inReplyTo = body.reply?.in_reply_to_tweet_id;
    if (inReplyTo !== undefined && (typeof inReplyTo !== 'string' || !this.tweets.some((t) => t.id === inReplyTo))) {
      return problem(403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.');
    }
    if (this.tweets.some((t) => t.authorId === userId && t.text === text)) {
      return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
    }
    const tweet: FakeTweet = {
      id: String(this.nextId++),
      authorId: userId,
      text,
      mediaIds,
      inReplyToId: typeof inReplyTo === 'string' ? inReplyTo : null,
      createdAt: new Date().toISOString(),
      counts: { likes: 0, reposts: 0, replies: 0, quotes: 0, impressions: 0 },
    };
    this.tweets.push(tweet);
    await this.waitIfHeld();
    const rule = this.failAfterCreate.findIndex((r) => r.when?.(text) ?? true);
    if (rule >= 0) return this.injectedFailure(this.failAfterCreate.splice(rule, 1)[0].status);
    return { status: 201, body: { data: { id: tweet.id, text: tweet.text, edit_history_tweet_ids: [tweet.id] } } };
  }

  /** The alt text X holds for an uploaded media id (null when none was set). */
  altTextOf(mediaId: string): string | null {
    return this.media.get(mediaId)?.altText ?? null;
  }

  private mediaMetadata(req: FakeRequest, userId: string): FakeReply {
    let body: { id?: unknown; metadata?: { alt_text?: { text?: unknown } } };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return problem(400, 'Invalid Request', 'Body is not JSON');
    }
    const media = typeof body.id === 'string' ? this.media.get(body.id) : undefined;
    if (!media || media.userId !== userId) return problem(400, 'Invalid Request', 'Unknown media id');
    const text = body.metadata?.alt_text?.text;
    if (typeof text !== 'string' || [...text].length > 1000) {
      return problem(400, 'Invalid Request', 'metadata.alt_text.text must be a string of at most 1000 characters');
    }
    media.altText = text;
    return { status: 200, body: { data: { id: media.id, associated_metadata: { alt_text: { text } } } } };
  }

  private mediaInit(req: FakeRequest, userId: string): FakeReply {
    let body: { media_type?: unknown; total_bytes?: unknown; media_category?: unknown };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return problem(400, 'Invalid Request', 'Body is not JSON');
    }
    const total = Number(body.total_bytes);
    if (typeof body.media_type !== 'string' || !Number.isInteger(total) || total <= 0) {
      return problem(400, 'Invalid Request', 'media_type and total_bytes are required');
    }
    const category = typeof body.media_category === 'string' ? body.media_category : 'tweet_image';
    if (category === 'tweet_video') {
      if (!/^video\/(mp4|quicktime)$/.test(body.media_type)) {
        return problem(400, 'Invalid Request', `media_type ${body.media_type} is not supported for tweet_video`);
      }
      if (total > X_FAKE_MAX_VIDEO_BYTES) {
        return problem(400, 'Invalid Request', `File size exceeds ${X_FAKE_MAX_VIDEO_BYTES} bytes.`);
      }
      this.videoInits += 1;
    } else if (category === 'tweet_gif') {
      // X's media guide: animated GIFs are their own category, up to 15 MB.
      if (body.media_type !== 'image/gif') {
        return problem(400, 'Invalid Request', `media_type ${body.media_type} is not supported for tweet_gif`);
      }
      if (total > 15 * 1024 * 1024) return problem(400, 'Invalid Request', 'File size exceeds 15728640 bytes.');
    } else if (body.media_type === 'image/gif') {
      // A GIF sent as tweet_image would lose its animation: the category for it is tweet_gif.
      return problem(400, 'Invalid Request', 'media_type image/gif requires media_category tweet_gif');
    } else if (total > 5 * 1024 * 1024) return problem(400, 'Invalid Request', 'File size exceeds 5242880 bytes.');
    const id = String(this.nextId++);
    this.media.set(id, {
      id,
      userId,
      totalBytes: total,
      received: 0,
      finalized: false,
      altText: null,
      category,
      mediaType: body.media_type,
      segments: [],
      video: null,
    });
    return { status: 200, body: { data: { id, media_key: `3_${id}`, expires_after_secs: 86400 } } };
  }

  private mediaAppend(req: FakeRequest, userId: string): FakeReply {
    const media = this.media.get(req.path.split('/')[4]);
    if (!media || media.userId !== userId || media.finalized)
      return problem(400, 'Invalid Request', 'Unknown media_id');
    const boundary = /boundary=([^;]+)/.exec(String(req.headers['content-type'] ?? ''))?.[1];
    if (!boundary) return problem(400, 'Invalid Request', 'multipart/form-data expected');
    const raw = req.body.toString('latin1');
    const part = raw.split(`--${boundary}`).find((p) => /name="media"/.test(p));
    if (!part || !/name="segment_index"/.test(raw))
      return problem(400, 'Invalid Request', 'media and segment_index are required');
    const content = part.slice(part.indexOf('\r\n\r\n') + 4, part.lastIndexOf('\r\n'));
    const bytes = Buffer.from(content, 'latin1');
    media.received += bytes.length;
    if (media.category === 'tweet_video') media.segments.push(bytes);
    return { status: 200, body: { data: { expires_at: Math.floor(Date.now() / 1000) + 86400 } } };
  }

  /** X's `processing_info` of a video: pending / in_progress with check_after_secs, succeeded, or failed. */
  private processingInfo(video: FakeVideo): Record<string, unknown> {
    if (video.state === 'ready') return { state: 'succeeded', progress_percent: 100 };
    if (video.state === 'failed') {
      return { state: 'failed', progress_percent: 12, error: { code: 1, name: 'InvalidMedia', message: video.error } };
    }
    return { state: video.polls === 0 ? 'pending' : 'in_progress', check_after_secs: 1, progress_percent: 50 };
  }

  /** The fields asked for: `post.fields`, and `referenced_posts` when it is among the expansions. */
  private fieldsOf(req: FakeRequest): string {
    const expansions = (req.url.searchParams.get('expansions') ?? '').split(',');
    return [req.url.searchParams.get('post.fields') ?? '', ...expansions.filter((e) => e === 'referenced_posts')].join(
      ',',
    );
  }

  private tweetJson(tweet: FakeTweet, fields: string | null): Record<string, unknown> {
    const wanted = new Set((fields ?? '').split(','));
    const json: Record<string, unknown> = {
      id: tweet.id,
      // X appends a t.co link for attached media.
      text: tweet.mediaIds.length ? `${tweet.text} https://t.co/${tweet.id.slice(-10)}` : tweet.text,
      edit_history_tweet_ids: [tweet.id],
    };
    if (wanted.has('created_at')) json.created_at = tweet.createdAt;
    if (wanted.has('referenced_posts') && tweet.inReplyToId) {
      json.referenced_posts = [{ type: 'replied_to', id: tweet.inReplyToId }];
    }
    if (wanted.has('in_reply_to_user_id') && tweet.inReplyToId) {
      json.in_reply_to_user_id = this.tweets.find((t) => t.id === tweet.inReplyToId)?.authorId;
    }
    if (wanted.has('public_metrics')) {
      json.public_metrics = {
        retweet_count: tweet.counts.reposts,
        reply_count: tweet.counts.replies,
        like_count: tweet.counts.likes,
        quote_count: tweet.counts.quotes ?? 0,
        bookmark_count: 0,
        impression_count: tweet.counts.impressions,
      };
    }
    return json;
  }
}

/** XFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new XFake();
  return oauthContractFake(fake, {
    publishRoute: X_ROUTES.createTweet,
    rejectStatus: 403,
    revocation: {
      requests: () => fake.revocations,
      lastAccessToken: () => fake.lastAccessToken,
      expected: (accessToken) => {
        const common = {
          method: 'POST',
          path: '/2/oauth2/revoke',
          authorization: basicOf(fake.clientId, fake.clientSecret),
        };
        return [
          { ...common, form: { token: fake.lastRefreshToken, token_type_hint: 'refresh_token' } },
          { ...common, form: { token: accessToken, token_type_hint: 'access_token' } },
        ];
      },
    },
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/2/tweets`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.issueToken()}` },
      body: JSON.stringify({ txt: 'renamed' }),
      renamed: { from: 'text', to: 'txt' },
    })),
    posts: () =>
      fake.tweets.map((t) => ({
        platformPostId: t.id,
        text: t.text,
        mediaCount: t.mediaIds.length,
        mediaAltTexts: t.mediaIds.map((id) => fake.altTextOf(id)),
        inReplyTo: t.inReplyToId,
      })),
  });
}
