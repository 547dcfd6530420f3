import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { youtubeDescription } from './descriptions/networks';
import { recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local Google + YouTube Data API v3: the OAuth 2.0 consent page (answers at once), the token
 * endpoint (code exchange with PKCE and client credentials in the form; refresh without rotation, as
 * Google's; a refresh token only with `access_type=offline`, and only at an account's first consent
 * unless `prompt=consent`), channels.list (mine=true), videos.insert as a resumable upload (initiate
 * with X-Upload-Content-Length, PUT chunks with Content-Range, 308 Resume Incomplete with Range,
 * status queries with `Content-Range: bytes *\/total`), thumbnails.set, videos.list (status,
 * processingDetails, statistics), commentThreads insert and list (insert needs the youtube.force-ssl
 * scope) and quota refusals (403 quotaExceeded). Errors use Google's bodies.
 */
export const YOUTUBE_ROUTES = {
  authorize: 'GET /o/oauth2/v2/auth',
  token: 'POST /token',
  revoke: 'POST /revoke',
  channels: 'GET /youtube/v3/channels',
  videos: 'GET /youtube/v3/videos',
  initiate: 'POST /upload/youtube/v3/videos',
  upload: 'PUT /upload/youtube/v3/videos',
  thumbnail: 'POST /upload/youtube/v3/thumbnails/set',
  commentInsert: 'POST /youtube/v3/commentThreads',
  commentList: 'GET /youtube/v3/commentThreads',
} as const;

const FORCE_SSL = 'https://www.googleapis.com/auth/youtube.force-ssl';

export interface FakeYouTubeComment {
  id: string;
  videoId: string;
  authorChannelId: string;
  text: string;
}

export interface YouTubeFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Google accounts, the first signs in on the consent page. Default: one account with one channel. */
  accounts?: FakeGoogleAccount[];
  /** videos.list reads answering `uploaded` before `processed`. Default 0. */
  processingPolls?: number;
}

export interface FakeGoogleAccount {
  sub: string;
  channels: Array<{ id: string; title: string; customUrl: string }>;
}

export interface FakeYouTubeVideo {
  id: string;
  channelId: string;
  snippet: { title: string; description: string; tags?: string[]; categoryId?: string };
  status: { privacyStatus: string; selfDeclaredMadeForKids?: boolean; publishAt?: string };
  notifySubscribers: boolean;
  bytes: Buffer;
  contentType: string;
  thumbnail: { contentType: string; bytes: number } | null;
  /** videos.list reads left before `processed`. */
  pollsLeft: number;
  /** Set by failProcessingNext: uploadStatus `failed` with this reason. */
  failureReason: string | null;
  counts: FakeCounts & { views: number };
}

interface Session {
  id: string;
  accountSub: string;
  channelId: string;
  total: number;
  contentType: string;
  metadata: { snippet: FakeYouTubeVideo['snippet']; status: FakeYouTubeVideo['status'] };
  notifySubscribers: boolean;
  received: Buffer[];
  receivedBytes: number;
  videoId: string | null;
}

interface Grant {
  sub: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  offline: boolean;
  consentPrompted: boolean;
  used: boolean;
}

const googleError = (code: number, reason: string, message: string, domain = 'youtube.api'): FakeReply => ({
  status: code,
  body: {
    error: {
      code,
      message,
      errors: [{ message, domain, reason }],
      status: code === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
    },
  },
});
const UNAUTHORIZED = googleError(401, 'authError', 'Request had invalid authentication credentials.', 'global');

export class YouTubeFake extends FakeHttpServer {
  readonly accounts: FakeGoogleAccount[];
  readonly videos: FakeYouTubeVideo[] = [];
  /** Top-level comments posted (commentThreads.insert), oldest first. */
  readonly comments: FakeYouTubeComment[] = [];
  /** Authorization requests received (query parameters), oldest first. */
  readonly authorizations: Array<Record<string, string>> = [];
  /** Token answers of code exchanges, oldest first (whether each carried a refresh token). */
  readonly codeExchanges: Array<{ refreshToken: boolean }> = [];
  readonly clientId: string;
  readonly clientSecret: string;
  /** `scope` null: a token issued outside the consent flow, which may do anything. */
  private readonly accessTokens = new Map<string, { sub: string; expiresAt: number; scope: string | null }>();
  private readonly refreshTokens = new Map<string, string>();
  private readonly refreshScopes = new Map<string, string>();
  private processingHeld = false;
  private readonly consented = new Set<string>();
  private readonly grants = new Map<string, Grant>();
  private readonly sessions = new Map<string, Session>();
  private withholdRefreshToken = 0;
  private interruptChunks = 0;
  private quotaExhausted = false;
  private failProcessing: string | null = null;
  private thumbnailRefusals = 0;
  private nextVideo = 1;

  constructor(private readonly opts: YouTubeFakeOptions = {}) {
    super(opts);
    this.clientId = opts.clientId ?? 'youtube-client-id.apps.googleusercontent.com';
    this.clientSecret = opts.clientSecret ?? 'youtube-client-secret';
    this.accounts = opts.accounts ?? [
      {
        sub: '100000000000000000001',
        channels: [{ id: 'UCcontractChannel000000a', title: 'Contract Channel', customUrl: '@contract' }],
      },
    ];
    // Every API call is checked against YouTube's discovery document. The consent page and token
    // endpoint (Google's OAuth 2.0 for web server applications) and the PUTs to a resumable session
    // URI (the resumable upload protocol, which the document names but does not describe) pass unchecked.
    this.checkAgainst(youtubeDescription(), {
      refuse: (problems) => googleError(400, 'badRequest', problems.join('; '), 'global'),
      unchecked: (req) =>
        [YOUTUBE_ROUTES.authorize, YOUTUBE_ROUTES.token, YOUTUBE_ROUTES.revoke, YOUTUBE_ROUTES.upload].includes(
          req.route as never,
        ),
    });
  }

  appEnv(): Record<string, string> {
    return {
      YOUTUBE_CLIENT_ID: this.clientId,
      YOUTUBE_CLIENT_SECRET: this.clientSecret,
      YOUTUBE_AUTH_BASE_URL: this.baseUrl,
      YOUTUBE_API_BASE_URL: this.baseUrl,
      YOUTUBE_TOKEN_BASE_URL: this.baseUrl,
      YOUTUBE_PROCESSING_POLL_MS: '20',
      YOUTUBE_UPLOAD_CHUNK_BYTES: String(256 * 1024),
    };
  }

  issueToken(
    sub = this.accounts[0].sub,
    token = `ya29.${randomBytes(8).toString('hex')}`,
    scope: string | null = null,
  ): string {
    this.accessTokens.set(token, { sub, expiresAt: Date.now() + 3600_000, scope });
    this.lastAccessToken = token;
    return token;
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The access token issued last, and the refresh token of the last code exchange. */
  lastAccessToken = '';
  lastRefreshToken = '';

  /**
   * POST /revoke (Google's OAuth 2.0 for web server applications, "Revoking a token"): `token` is an
   * access or refresh token; Google removes the app's grant, so every token of the account stops
   * working. An unknown token is 400 `invalid_token`.
   */
  private revoke(req: FakeRequest): FakeReply {
    const token = recordRevocation(req, this.revocations).form.token ?? '';
    const sub = this.accessTokens.get(token)?.sub ?? this.refreshTokens.get(token);
    if (!sub) return { status: 400, body: { error: 'invalid_token', error_description: 'Token expired or revoked' } };
    for (const [t, entry] of this.accessTokens) if (entry.sub === sub) this.accessTokens.delete(t);
    for (const [t, owner] of this.refreshTokens) if (owner === sub) this.refreshTokens.delete(t);
    return { status: 200, body: {} };
  }

  /** Uploaded videos stay `uploaded` (processing) until `releaseProcessing`. */
  holdProcessing(): void {
    this.processingHeld = true;
  }

  releaseProcessing(): void {
    this.processingHeld = false;
  }

  /** videos.list reads of a video's processing status (part status), the polls a wait made. */
  statusReads(): number {
    return this.requests.filter((r) => r.route === YOUTUBE_ROUTES.videos && /part=status/.test(r.query)).length;
  }

  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  /** The next `n` code exchanges answer without a refresh token (as Google does on a repeated consent). */
  withholdRefreshTokens(n = 1): void {
    this.withholdRefreshToken += n;
  }

  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = Date.now() - 1000;
  }

  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** The refresh tokens Google holds as valid. */
  validRefreshTokens(): string[] {
    return [...this.refreshTokens.keys()];
  }

  /** The next `n` chunk PUTs keep only the first half of their bytes, then answer 503. */
  interruptNextChunks(n = 1): void {
    this.interruptChunks += n;
  }

  /** Every call costing quota answers 403 quotaExceeded until `restoreQuota`. */
  exhaustQuota(): void {
    this.quotaExhausted = true;
  }

  restoreQuota(): void {
    this.quotaExhausted = false;
  }

  /** The next completed upload fails processing with this reason (uploadStatus `failed`). */
  failProcessingNext(reason = 'codec'): void {
    this.failProcessing = reason;
  }

  /** The next `n` thumbnails.set answer 403 (the channel may not set custom thumbnails). */
  refuseThumbnails(n = 1): void {
    this.thumbnailRefusals += n;
  }

  /** Upload sessions opened (videos.insert initiations that got a Location). */
  sessionCount(): number {
    return this.sessions.size;
  }

  setCounts(id: string, counts: Partial<FakeCounts & { views: number }>): void {
    const video = this.videos.find((v) => v.id === id);
    if (!video) throw new Error(`No video ${id}`);
    Object.assign(video.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    const key = `${method} ${path}`;
    return (Object.values(YOUTUBE_ROUTES) as string[]).includes(key) ? key : undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHORIZED;
    if (status === 400)
      return googleError(400, 'invalidTitle', 'The request metadata specifies an invalid video title.');
    if (status === 403) return googleError(403, 'forbidden', 'Access forbidden.');
    if (status === 429) return googleError(429, 'rateLimitExceeded', 'Too many requests.', 'usageLimits');
    return googleError(status, 'backendError', 'Backend Error', 'global');
  }

  protected handle(req: FakeRequest): FakeReply {
    if (req.route === YOUTUBE_ROUTES.authorize) return this.authorize(req);
    if (req.route === YOUTUBE_ROUTES.token) return this.token(req);
    if (req.route === YOUTUBE_ROUTES.revoke) return this.revoke(req);
    if (req.route === YOUTUBE_ROUTES.upload) return this.uploadChunk(req);
    const sub = this.authenticate(req);
    if (!sub) return UNAUTHORIZED;
    const account = this.accounts.find((a) => a.sub === sub)!;
    if (this.quotaExhausted && req.route !== YOUTUBE_ROUTES.channels) {
      return googleError(
        403,
        'quotaExceeded',
        'The request cannot be completed because you have exceeded your quota.',
        'youtube.quota',
      );
    }
    switch (req.route) {
      case YOUTUBE_ROUTES.channels:
        if (req.url.searchParams.get('mine') !== 'true')
          return googleError(400, 'missingRequiredParameter', 'No filter selected.');
        return {
          status: 200,
          body: {
            kind: 'youtube#channelListResponse',
            pageInfo: { totalResults: account.channels.length, resultsPerPage: 50 },
            items: account.channels.map((c) => ({
              kind: 'youtube#channel',
              id: c.id,
              snippet: {
                title: c.title,
                customUrl: c.customUrl,
                thumbnails: { default: { url: `${this.baseUrl}/avatars/${c.id}.jpg` } },
              },
              statistics: {
                viewCount: '0',
                subscriberCount: '0',
                videoCount: String(this.videos.filter((v) => v.channelId === c.id).length),
              },
            })),
          },
        };
      case YOUTUBE_ROUTES.initiate:
        return this.initiate(req, account);
      case YOUTUBE_ROUTES.thumbnail:
        return this.thumbnail(req, account);
      case YOUTUBE_ROUTES.videos:
        return this.listVideos(req);
      case YOUTUBE_ROUTES.commentInsert:
        return this.insertComment(req, account);
      case YOUTUBE_ROUTES.commentList:
        return this.listComments(req);
      default:
        return googleError(404, 'notFound', `No route ${req.method} ${req.path}`);
    }
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId) return { status: 400, raw: Buffer.from('Error 401: invalid_client') };
    if (q.response_type !== 'code' || q.code_challenge_method !== 'S256' || !q.code_challenge || !q.redirect_uri) {
      return { status: 400, raw: Buffer.from('Error 400: invalid_request') };
    }
    const target = new URL(q.redirect_uri);
    const code = `4/${randomBytes(12).toString('base64url')}`;
    this.grants.set(code, {
      sub: this.accounts[0].sub,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      scope: q.scope ?? '',
      offline: q.access_type === 'offline',
      consentPrompted: (q.prompt ?? '').split(' ').includes('consent'),
      used: false,
    });
    target.searchParams.set('code', code);
    if (q.state) target.searchParams.set('state', q.state);
    target.searchParams.set('scope', q.scope ?? '');
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString());
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'The OAuth client was not found.' } };
    }
    const invalid = { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) return invalid;
      if (
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') !== grant.challenge
      )
        return invalid;
      grant.used = true;
      const first = !this.consented.has(grant.sub);
      this.consented.add(grant.sub);
      let withRefresh = grant.offline && (first || grant.consentPrompted);
      if (withRefresh && this.withholdRefreshToken > 0) {
        this.withholdRefreshToken -= 1;
        withRefresh = false;
      }
      this.codeExchanges.push({ refreshToken: withRefresh });
      const body: Record<string, unknown> = {
        access_token: this.issueToken(grant.sub, undefined, grant.scope),
        expires_in: 3599,
        scope: grant.scope,
        token_type: 'Bearer',
      };
      if (withRefresh) {
        const refresh = `1//${randomBytes(12).toString('hex')}`;
        this.refreshTokens.set(refresh, grant.sub);
        this.lastRefreshToken = refresh;
        this.refreshScopes.set(refresh, grant.scope);
        body.refresh_token = refresh;
      }
      return { status: 200, body };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? '';
      const sub = this.refreshTokens.get(refresh);
      if (!sub)
        return {
          status: 400,
          body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
        };
      // Google keeps the refresh token: the answer carries none.
      const scope = this.refreshScopes.get(refresh) ?? null;
      return {
        status: 200,
        body: { access_token: this.issueToken(sub, undefined, scope), expires_in: 3599, token_type: 'Bearer' },
      };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  private authenticate(req: FakeRequest): string | null {
    const entry = this.tokenOf(req);
    return entry ? entry.sub : null;
  }

  private tokenOf(req: FakeRequest): { sub: string; scope: string | null } | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry : null;
  }

  private initiate(req: FakeRequest, account: FakeGoogleAccount): FakeReply {
    const q = req.url.searchParams;
    if (q.get('uploadType') !== 'resumable')
      return googleError(400, 'invalidParameter', 'uploadType must be resumable');
    const total = Number(req.headers['x-upload-content-length']);
    const contentType = String(req.headers['x-upload-content-type'] ?? '');
    if (!Number.isInteger(total) || total <= 0 || !contentType.startsWith('video/')) {
      return googleError(400, 'invalidVideoMetadata', 'X-Upload-Content-Length and X-Upload-Content-Type are required');
    }
    let body: { snippet?: FakeYouTubeVideo['snippet']; status?: FakeYouTubeVideo['status'] };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return googleError(400, 'parseError', 'Parse Error');
    }
    const title = body.snippet?.title;
    if (typeof title !== 'string' || !title || [...title].length > 100 || /[<>]/.test(title)) {
      return googleError(400, 'invalidTitle', 'The request metadata specifies an invalid video title.');
    }
    if (!['public', 'unlisted', 'private'].includes(body.status?.privacyStatus ?? '')) {
      return googleError(400, 'invalidVideoMetadata', 'The request metadata is invalid.');
    }
    if (body.status?.publishAt && body.status.privacyStatus !== 'private') {
      return googleError(
        400,
        'invalidPublishAt',
        'The request metadata specifies an invalid scheduled publishing time.',
      );
    }
    const id = randomBytes(9).toString('base64url');
    this.sessions.set(id, {
      id,
      accountSub: account.sub,
      channelId: account.channels[0].id,
      total,
      contentType,
      metadata: { snippet: body.snippet!, status: body.status! },
      notifySubscribers: q.get('notifySubscribers') !== 'false',
      received: [],
      receivedBytes: 0,
      videoId: null,
    });
    return {
      status: 200,
      headers: { location: `${this.baseUrl}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}` },
    };
  }

  private uploadChunk(req: FakeRequest): FakeReply {
    const session = this.sessions.get(req.url.searchParams.get('upload_id') ?? '');
    if (!session) return googleError(404, 'notFound', 'Upload session not found.');
    const range = String(req.headers['content-range'] ?? '');
    const statusQuery = /^bytes \*\/(\d+)$/.exec(range);
    if (statusQuery) {
      if (session.videoId)
        return {
          status: 200,
          body: this.videoJson(
            this.videos.find((v) => v.id === session.videoId)!,
            'snippet,status',
          ),
        };
      return this.incomplete(session);
    }
    if (session.videoId)
      return {
        status: 200,
        body: this.videoJson(
          this.videos.find((v) => v.id === session.videoId)!,
          'snippet,status',
        ),
      };
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    if (!m || Number(m[3]) !== session.total) return googleError(400, 'badContent', `Invalid Content-Range: ${range}`);
    const [first, last] = [Number(m[1]), Number(m[2])];
    if (first !== session.receivedBytes || last - first + 1 !== req.body.length) {
      return googleError(
        400,
        'badContent',
        `Content-Range ${range} does not continue at byte ${session.receivedBytes}`,
      );
    }
    if (this.interruptChunks > 0) {
      this.interruptChunks -= 1;
      const kept = req.body.subarray(0, Math.floor(req.body.length / 2));
      session.received.push(Buffer.from(kept));
      session.receivedBytes += kept.length;
      return googleError(503, 'backendError', 'Backend Error', 'global');
    }
    session.received.push(Buffer.from(req.body));
    session.receivedBytes += req.body.length;
    if (session.receivedBytes < session.total) return this.incomplete(session);
    const video: FakeYouTubeVideo = {
      id: `v${String(this.nextVideo++).padStart(10, '0')}`,
      channelId: session.channelId,
      snippet: session.metadata.snippet,
      status: session.metadata.status,
      notifySubscribers: session.notifySubscribers,
      bytes: Buffer.concat(session.received),
      contentType: session.contentType,
      thumbnail: null,
      pollsLeft: this.opts.processingPolls ?? 0,
      failureReason: this.failProcessing,
      counts: { likes: 0, reposts: 0, replies: 0, views: 0 },
    };
    this.failProcessing = null;
    this.videos.push(video);
    session.videoId = video.id;
    return { status: 200, body: this.videoJson(video, 'snippet,status') };
  }

  private incomplete(session: Session): FakeReply {
    const headers: Record<string, string> = {};
    if (session.receivedBytes > 0) headers.range = `bytes=0-${session.receivedBytes - 1}`;
    return { status: 308, headers };
  }

  private thumbnail(req: FakeRequest, account: FakeGoogleAccount): FakeReply {
    const video = this.videos.find((v) => v.id === req.url.searchParams.get('videoId'));
    if (!video || !account.channels.some((c) => c.id === video.channelId))
      return googleError(404, 'videoNotFound', 'Video not found.');
    if (this.thumbnailRefusals > 0) {
      this.thumbnailRefusals -= 1;
      return googleError(
        403,
        'forbidden',
        "The authenticated user doesn't have permissions to upload and set custom video thumbnails.",
      );
    }
    const type = String(req.headers['content-type'] ?? '');
    if (!['image/jpeg', 'image/png'].includes(type) || req.body.length === 0)
      return googleError(400, 'invalidImage', 'The provided image content is invalid.');
    if (req.body.length > 2 * 1024 * 1024) return googleError(400, 'mediaBodyRequired', 'The image is too large.');
    video.thumbnail = { contentType: type, bytes: req.body.length };
    return {
      status: 200,
      body: {
        kind: 'youtube#thumbnailSetResponse',
        items: [{ default: { url: `${this.baseUrl}/vi/${video.id}/default.jpg` } }],
      },
    };
  }

  /** commentThreads.insert: a top-level comment (part=snippet) by the token's channel; force-ssl scope only. */
  private insertComment(req: FakeRequest, account: FakeGoogleAccount): FakeReply {
    const scope = this.tokenOf(req)?.scope;
    if (scope !== null && scope !== undefined && !scope.split(' ').includes(FORCE_SSL)) {
      return googleError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'global');
    }
    if (req.url.searchParams.get('part') !== 'snippet')
      return googleError(400, 'invalidPart', "The 'part' parameter must be snippet.");
    let body: {
      snippet?: { channelId?: string; videoId?: string; topLevelComment?: { snippet?: { textOriginal?: string } } };
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return googleError(400, 'parseError', 'Parse Error');
    }
    const text = body.snippet?.topLevelComment?.snippet?.textOriginal;
    const video = this.videos.find((v) => v.id === body.snippet?.videoId);
    if (!video)
      return googleError(404, 'videoNotFound', 'The video identified by the videoId parameter could not be found.');
    if (typeof text !== 'string' || text.trim() === '' || [...text].length > 10_000)
      return googleError(400, 'commentTextRequired', 'The comment resource must contain a textOriginal.');
    if (!body.snippet?.channelId) return googleError(400, 'channelIdRequired', 'snippet.channelId is required.');
    if (video.status.privacyStatus === 'private')
      return googleError(403, 'forbidden', 'The comment could not be created due to insufficient permissions.');
    const comment: FakeYouTubeComment = {
      id: `Ug${randomBytes(9).toString('base64url')}`,
      videoId: video.id,
      authorChannelId: account.channels.find((c) => c.id === video.channelId)?.id ?? account.channels[0].id,
      text,
    };
    this.comments.push(comment);
    return { status: 200, body: this.threadJson(comment) };
  }

  /** commentThreads.list by videoId, newest first (order=time). */
  private listComments(req: FakeRequest): FakeReply {
    const videoId = req.url.searchParams.get('videoId');
    if (!videoId) return googleError(400, 'missingRequiredParameter', 'No filter selected.');
    const items = this.comments
      .filter((c) => c.videoId === videoId)
      .reverse()
      .map((c) => this.threadJson(c));
    return { status: 200, body: { kind: 'youtube#commentThreadListResponse', items } };
  }

  private threadJson(c: FakeYouTubeComment): Record<string, unknown> {
    return {
      kind: 'youtube#commentThread',
      id: c.id,
      snippet: {
        videoId: c.videoId,
        topLevelComment: {
          kind: 'youtube#comment',
          id: c.id,
          snippet: {
            videoId: c.videoId,
            textOriginal: c.text,
            textDisplay: c.text,
            authorChannelId: { value: c.authorChannelId },
          },
        },
        totalReplyCount: 0,
        isPublic: true,
      },
    };
  }

  private listVideos(req: FakeRequest): FakeReply {
    const ids = (req.url.searchParams.get('id') ?? '').split(',');
    const parts = req.url.searchParams.get('part') ?? '';
    const items = this.videos
      .filter((v) => ids.includes(v.id))
      .map((v) => {
        const json = this.videoJson(v, parts);
        // This read answered `uploaded`: one fewer before `processed`.
        if (parts.includes('status') && v.pollsLeft > 0 && !this.processingHeld) v.pollsLeft -= 1;
        return json;
      });
    return {
      status: 200,
      body: { kind: 'youtube#videoListResponse', items, pageInfo: { totalResults: items.length } },
    };
  }

  private videoJson(video: FakeYouTubeVideo, parts: string): Record<string, unknown> {
    const json: Record<string, unknown> = { kind: 'youtube#video', id: video.id };
    const processed = video.pollsLeft === 0 && !this.processingHeld;
    if (parts.includes('snippet')) json.snippet = { ...video.snippet, channelId: video.channelId };
    if (parts.includes('status')) {
      json.status = {
        ...video.status,
        uploadStatus: video.failureReason ? 'failed' : processed ? 'processed' : 'uploaded',
        ...(video.failureReason ? { failureReason: video.failureReason } : {}),
      };
    }
    if (parts.includes('processingDetails')) {
      json.processingDetails = {
        processingStatus: video.failureReason ? 'failed' : processed ? 'succeeded' : 'processing',
      };
    }
    if (parts.includes('statistics')) {
      json.statistics = {
        viewCount: String(video.counts.views),
        likeCount: String(video.counts.likes),
        favoriteCount: '0',
        commentCount: String(video.counts.replies),
      };
    }
    return json;
  }
}

/** YouTubeFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new YouTubeFake();
  return {
    ...oauthContractFake(fake, {
      revocation: {
        requests: () => fake.revocations,
        lastAccessToken: () => fake.lastAccessToken,
        // The refresh token the connection got: revoking it ends the whole grant.
        expected: () => [{ method: 'POST', path: '/revoke', form: { token: fake.lastRefreshToken } }],
      },
      publishRoute: YOUTUBE_ROUTES.initiate,
      rejectStatus: 400,
      posts: () =>
        fake.videos.map((v) => ({
          platformPostId: v.id,
          text: v.snippet.description,
          mediaCount: 1,
          inReplyTo: null,
        })),
    }),
    requiresVideo: true,
    described: describedContract(fake, () => ({
      // videos.insert's resumable session as the adapter opens it, the snippet's `description` renamed.
      method: 'POST',
      url: `${fake.baseUrl}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&notifySubscribers=true`,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${fake.issueToken()}`,
        'x-upload-content-length': '1000',
        'x-upload-content-type': 'video/mp4',
      },
      body: JSON.stringify({
        snippet: { title: 'renamed field', descriptionText: 'renamed field' },
        status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false },
      }),
      renamed: { from: 'description', to: 'descriptionText' },
    })),
    publishOptions: { madeForKids: false, privacy: 'unlisted' },
    unreportedFigures: ['reposts'],
  };
}
