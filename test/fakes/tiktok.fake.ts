import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { tiktokDescription } from './descriptions/networks';
import { recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local TikTok (API v2): the Login Kit consent page (answers at once; `client_key`, comma-separated
 * scopes), the token endpoint (client_key + client_secret in the form, PKCE when a challenge was
 * sent, refresh with rotation), user info, and the Content Posting API's Direct Post: creator_info,
 * video/init with FILE_UPLOAD (TikTok's chunk rules enforced) or PULL_FROM_URL (the fake downloads the
 * URL), chunk PUTs with Content-Range (206, then 201), photo posts (content/init, media_type PHOTO,
 * PULL_FROM_URL: the fake downloads each JPEG/WebP), status/fetch (with TikTok's per-token limit when
 * asked), and video/query for figures. An unaudited app (`audited: false`) may post only SELF_ONLY to
 * private accounts, as TikTok enforces.
 * Every answer carries TikTok's `{data, error: {code, message, log_id}}`.
 */
export const TIKTOK_ROUTES = {
  authorize: 'GET /v2/auth/authorize/',
  token: 'POST /v2/oauth/token/',
  revoke: 'POST /v2/oauth/revoke/',
  userInfo: 'GET /v2/user/info/',
  creatorInfo: 'POST /v2/post/publish/creator_info/query/',
  init: 'POST /v2/post/publish/video/init/',
  photoInit: 'POST /v2/post/publish/content/init/',
  upload: 'PUT /upload/',
  status: 'POST /v2/post/publish/status/fetch/',
  videoQuery: 'POST /v2/video/query/',
} as const;

const MB = 1024 * 1024;
const PRIVACY = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

export interface TikTokFakeOptions extends FakeServerOptions {
  clientKey?: string;
  clientSecret?: string;
  /** Whether the app passed TikTok's audit. Default true. */
  audited?: boolean;
  /** status/fetch reads answering PROCESSING_UPLOAD (then PUBLISH_COMPLETE) once the bytes are in. Default 1. */
  processingPolls?: number;
}

export interface FakeTikTokCreator {
  openId: string;
  username: string;
  displayName: string;
  privateAccount: boolean;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

export interface FakeTikTokPost {
  publishId: string;
  openId: string;
  postInfo: Record<string, unknown>;
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  mediaType: 'VIDEO' | 'PHOTO';
  /** Photo posts: the images as pulled, and the cover's index. */
  photos: Array<{ contentType: string; bytes: number }>;
  photoCoverIndex: number | null;
  size: number;
  chunkSize: number;
  totalChunkCount: number;
  chunksReceived: number;
  bytes: Buffer[];
  receivedBytes: number;
  pollsLeft: number;
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'PUBLISH_COMPLETE' | 'FAILED';
  failReason: string | null;
  /** Set once published publicly (a SELF_ONLY post gets none). */
  postId: string | null;
  counts: FakeCounts & { views: number };
}

const reply = (status: number, code: string, message: string, data: unknown = {}): FakeReply => ({
  status,
  body: { data, error: { code, message, log_id: `2026${randomBytes(8).toString('hex').toUpperCase()}` } },
});
const ok = (data: unknown) => reply(200, 'ok', '', data);
const UNAUTHORIZED = reply(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');

export class TikTokFake extends FakeHttpServer {
  readonly creators: FakeTikTokCreator[] = [
    {
      openId: '-000contractOpenId0000000000000000',
      username: 'contract.tiktok',
      displayName: 'Contract TikTok',
      privateAccount: false,
      privacyLevelOptions: [...PRIVACY],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: false,
      maxVideoPostDurationSec: 600,
    },
  ];
  readonly posts: FakeTikTokPost[] = [];
  readonly authorizations: Array<Record<string, string>> = [];
  readonly clientKey: string;
  readonly clientSecret: string;
  audited: boolean;
  private readonly accessTokens = new Map<string, { openId: string; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, string>();
  private readonly grants = new Map<
    string,
    { openId: string; redirectUri: string; challenge: string | null; scope: string; used: boolean }
  >();
  private interruptChunks = 0;
  private failPublish: string | null = null;
  private rateLimitedStatus = 0;
  private processingHeld = false;
  private nextPost = 7_300_000_000_000_000_000n;

  constructor(private readonly opts: TikTokFakeOptions = {}) {
    super(opts);
    this.clientKey = opts.clientKey ?? 'awtiktokclientkey';
    this.clientSecret = opts.clientSecret ?? 'tiktok-client-secret';
    this.audited = opts.audited ?? true;
    // The init calls against the Content Posting API's reference as recorded (test/fixtures/networks/
    // tiktok: partly read, SOURCE.md says which tables); refused as TikTok refuses bad parameters,
    // 400 invalid_params. The other calls' tables could not be read: this fake's own checks stand.
    this.checkAgainst(tiktokDescription(), {
      refuse: (problems) => reply(400, 'invalid_params', problems.join('; ')),
      unchecked: (req) => req.route !== TIKTOK_ROUTES.init && req.route !== TIKTOK_ROUTES.photoInit,
    });
  }

  appEnv(): Record<string, string> {
    return {
      TIKTOK_CLIENT_KEY: this.clientKey,
      TIKTOK_CLIENT_SECRET: this.clientSecret,
      TIKTOK_AUTH_BASE_URL: this.baseUrl,
      TIKTOK_API_BASE_URL: this.baseUrl,
      TIKTOK_STATUS_POLL_MS: '20',
    };
  }

  issueToken(openId = this.creators[0].openId, token = `act.${randomBytes(12).toString('hex')}`): string {
    this.accessTokens.set(token, { openId, expiresAt: Date.now() + 86_400_000 });
    this.lastAccessToken = token;
    return token;
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The access token issued last. */
  lastAccessToken = '';

  /**
   * POST /v2/oauth/revoke/ ("Revoke a user access token"): `client_key`, `client_secret` and the access
   * `token` as a form; TikTok disconnects the app from the account, so every token of it stops working.
   * Success is an empty answer.
   */
  private revoke(req: FakeRequest): FakeReply {
    const { form } = recordRevocation(req, this.revocations);
    const refused = (error: string, description: string) => ({
      status: 400,
      body: { error, error_description: description, log_id: 'revoke' },
    });
    if (form.client_key !== this.clientKey || form.client_secret !== this.clientSecret) {
      return refused('invalid_client', 'Client key or secret is incorrect.');
    }
    const openId = this.accessTokens.get(form.token ?? '')?.openId;
    if (!openId) return refused('invalid_request', 'The access token is invalid or not found in the request.');
    for (const [t, entry] of this.accessTokens) if (entry.openId === openId) this.accessTokens.delete(t);
    for (const [t, owner] of this.refreshTokens) if (owner === openId) this.refreshTokens.delete(t);
    return { status: 200, body: {} };
  }

  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** The next `n` chunk PUTs are lost (503, nothing kept). */
  interruptNextChunks(n = 1): void {
    this.interruptChunks += n;
  }

  /** The next post fails in processing with this fail_reason. */
  failNextPublish(reason = 'file_format_check_failed'): void {
    this.failPublish = reason;
  }

  /** The next `n` status/fetch reads answer 429 rate_limit_exceeded (TikTok's 30 a minute per token). */
  rateLimitNextStatus(n = 1): void {
    this.rateLimitedStatus += n;
  }

  /** Posts stay in processing (status/fetch answers PROCESSING_*) until `releaseProcessing`. */
  holdProcessing(): void {
    this.processingHeld = true;
  }

  releaseProcessing(): void {
    this.processingHeld = false;
  }

  /** status/fetch reads received, the polls a wait made. */
  statusReads(): number {
    return this.requests.filter((r) => r.route === TIKTOK_ROUTES.status).length;
  }

  /** The posts initialized (video/init or content/init), the count a duplicate would raise. */
  initCount(): number {
    return this.posts.length;
  }

  setCounts(id: string, counts: Partial<FakeCounts & { views: number }>): void {
    const post = this.posts.find((p) => p.postId === id || p.publishId === id);
    if (!post) throw new Error(`No post ${id}`);
    Object.assign(post.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'PUT' && path.startsWith('/upload/')) return TIKTOK_ROUTES.upload;
    const key = `${method} ${path}`;
    return (Object.values(TIKTOK_ROUTES) as string[]).includes(key) ? key : undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHORIZED;
    if (status === 429) return reply(429, 'rate_limit_exceeded', 'API rate limit was exceeded.');
    if (status === 400) return reply(400, 'invalid_params', 'The request body is invalid.');
    if (status === 403) return reply(403, 'spam_risk_too_many_posts', 'The daily post cap is reached.');
    return reply(status, 'internal_error', 'Something went wrong.');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === TIKTOK_ROUTES.authorize) return this.authorize(req);
    if (req.route === TIKTOK_ROUTES.token) return this.token(req);
    if (req.route === TIKTOK_ROUTES.revoke) return this.revoke(req);
    if (req.route === TIKTOK_ROUTES.upload) return this.upload(req);
    const openId = this.authenticate(req);
    if (!openId) return UNAUTHORIZED;
    const creator = this.creators.find((c) => c.openId === openId)!;
    switch (req.route) {
      case TIKTOK_ROUTES.userInfo:
        return ok({
          user: {
            open_id: creator.openId,
            union_id: `u${creator.openId}`,
            avatar_url: `${this.baseUrl}/avatars/${creator.username}.jpeg`,
            display_name: creator.displayName,
            username: creator.username,
          },
        });
      case TIKTOK_ROUTES.creatorInfo:
        return ok({
          creator_avatar_url: `${this.baseUrl}/avatars/${creator.username}.jpeg`,
          creator_username: creator.username,
          creator_nickname: creator.displayName,
          privacy_level_options: creator.privacyLevelOptions,
          comment_disabled: creator.commentDisabled,
          duet_disabled: creator.duetDisabled,
          stitch_disabled: creator.stitchDisabled,
          max_video_post_duration_sec: creator.maxVideoPostDurationSec,
        });
      case TIKTOK_ROUTES.init:
        return this.init(req, creator);
      case TIKTOK_ROUTES.photoInit:
        return this.photoInit(req, creator);
      case TIKTOK_ROUTES.status:
        return this.status(req, creator);
      case TIKTOK_ROUTES.videoQuery: {
        const body = JSON.parse(req.body.toString() || '{}') as { filters?: { video_ids?: string[] } };
        const ids = body.filters?.video_ids ?? [];
        const videos = this.posts
          .filter((p) => p.openId === openId && p.postId && ids.includes(p.postId))
          .map((p) => ({
            id: p.postId,
            like_count: p.counts.likes,
            comment_count: p.counts.replies,
            share_count: p.counts.reposts,
            view_count: p.counts.views,
          }));
        return ok({ videos, cursor: 0, has_more: false });
      }
      default:
        return reply(404, 'invalid_params', `No route ${req.method} ${req.path}`);
    }
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_key !== this.clientKey) return { status: 400, raw: Buffer.from('client_key: invalid') };
    if (q.response_type !== 'code' || !q.redirect_uri || !q.scope)
      return { status: 400, raw: Buffer.from('invalid_request') };
    const target = new URL(q.redirect_uri);
    const code = randomBytes(16).toString('base64url');
    this.grants.set(code, {
      openId: this.creators[0].openId,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge ?? null,
      scope: q.scope,
      used: false,
    });
    target.searchParams.set('code', code);
    target.searchParams.set('scopes', q.scope);
    if (q.state) target.searchParams.set('state', q.state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString());
    const refused = (error: string, description: string) => ({
      status: 400,
      body: { error, error_description: description, log_id: 'x' },
    });
    if (form.get('client_key') !== this.clientKey || form.get('client_secret') !== this.clientSecret) {
      return refused('invalid_client', 'Client key or secret is incorrect.');
    }
    let openId: string | undefined;
    let scope = 'user.info.basic,video.publish,video.list';
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri'))
        return refused('invalid_grant', 'Authorization code is expired.');
      if (
        grant.challenge &&
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') !== grant.challenge
      ) {
        return refused('invalid_grant', 'Code verifier is invalid.');
      }
      grant.used = true;
      openId = grant.openId;
      scope = grant.scope;
    } else if (form.get('grant_type') === 'refresh_token') {
      openId = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!openId) return refused('invalid_grant', 'Refresh token is invalid or expired.');
      this.refreshTokens.delete(form.get('refresh_token') ?? '');
    } else {
      return refused('unsupported_grant_type', 'grant_type is invalid');
    }
    const refresh = `rft.${randomBytes(12).toString('hex')}`;
    this.refreshTokens.set(refresh, openId);
    return {
      status: 200,
      body: {
        access_token: this.issueToken(openId),
        expires_in: 86400,
        open_id: openId,
        refresh_expires_in: 31536000,
        refresh_token: refresh,
        scope,
        token_type: 'Bearer',
      },
    };
  }

  private authenticate(req: FakeRequest): string | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry.openId : null;
  }

  /** The checks video/init and content/init share: privacy, audit, the creator's switches. */
  private postInfoRefusal(info: Record<string, unknown>, creator: FakeTikTokCreator): FakeReply | null {
    const privacy = info.privacy_level;
    if (typeof privacy !== 'string' || !PRIVACY.includes(privacy))
      return reply(400, 'invalid_params', 'privacy_level is required.');
    if (!this.audited && (privacy !== 'SELF_ONLY' || !creator.privateAccount)) {
      return reply(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/',
      );
    }
    if (!creator.privacyLevelOptions.includes(privacy)) {
      return reply(400, 'privacy_level_option_mismatch', 'privacy_level is not in the creator privacy_level_options.');
    }
    if (creator.commentDisabled && info.disable_comment !== true)
      return reply(400, 'invalid_params', 'disable_comment must be true: the creator turned it off.');
    return null;
  }

  private async init(req: FakeRequest, creator: FakeTikTokCreator): Promise<FakeReply> {
    let body: { post_info?: Record<string, unknown>; source_info?: Record<string, unknown> };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return reply(400, 'invalid_params', 'The request body is not JSON.');
    }
    const info = body.post_info ?? {};
    const source = body.source_info ?? {};
    for (const [flag, disabled] of [
      ['disable_duet', creator.duetDisabled],
      ['disable_stitch', creator.stitchDisabled],
    ] as const) {
      if (disabled && info[flag] !== true)
        return reply(400, 'invalid_params', `${flag} must be true: the creator turned it off.`);
    }
    const refused = this.postInfoRefusal(info, creator);
    if (refused) return refused;
    const post: FakeTikTokPost = {
      publishId: `v_pub_file~v2-1.${randomBytes(8).toString('hex')}`,
      openId: creator.openId,
      postInfo: info,
      source: source.source === 'PULL_FROM_URL' ? 'PULL_FROM_URL' : 'FILE_UPLOAD',
      mediaType: 'VIDEO',
      photos: [],
      photoCoverIndex: null,
      size: 0,
      chunkSize: 0,
      totalChunkCount: 0,
      chunksReceived: 0,
      bytes: [],
      receivedBytes: 0,
      pollsLeft: this.opts.processingPolls ?? 1,
      status: 'PROCESSING_UPLOAD',
      failReason: null,
      postId: null,
      counts: { likes: 0, reposts: 0, replies: 0, views: 0 },
    };
    if (post.source === 'PULL_FROM_URL') {
      const url = source.video_url;
      if (typeof url !== 'string') return reply(400, 'invalid_params', 'video_url is required.');
      const res = await fetch(url);
      if (!res.ok) return reply(400, 'invalid_params', `video_url could not be downloaded (HTTP ${res.status}).`);
      const bytes = Buffer.from(await res.arrayBuffer());
      post.bytes.push(bytes);
      post.size = post.receivedBytes = bytes.length;
      post.status = 'PROCESSING_DOWNLOAD';
      this.posts.push(post);
      return ok({ publish_id: post.publishId });
    }
    const size = Number(source.video_size);
    const chunkSize = Number(source.chunk_size);
    const count = Number(source.total_chunk_count);
    const problem = chunkProblem(size, chunkSize, count);
    if (problem) return reply(400, 'invalid_params', problem);
    Object.assign(post, { size, chunkSize, totalChunkCount: count });
    this.posts.push(post);
    return ok({
      publish_id: post.publishId,
      upload_url: `${this.baseUrl}/upload/?upload_id=${encodeURIComponent(post.publishId)}&upload_token=${randomBytes(6).toString('hex')}`,
    });
  }

  /**
   * content/init for photos: media_type PHOTO, DIRECT_POST, PULL_FROM_URL only, 1 to 35 JPEG/WebP
   * images (each downloaded, at most 20 MB), a cover index among them, a title of at most 90
   * characters and a description of at most 4,000.
   */
  private async photoInit(req: FakeRequest, creator: FakeTikTokCreator): Promise<FakeReply> {
    let body: {
      media_type?: string;
      post_mode?: string;
      post_info?: Record<string, unknown>;
      source_info?: Record<string, unknown>;
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return reply(400, 'invalid_params', 'The request body is not JSON.');
    }
    if (body.media_type !== 'PHOTO') return reply(400, 'invalid_params', 'media_type must be PHOTO.');
    if (body.post_mode !== 'DIRECT_POST' && body.post_mode !== 'MEDIA_UPLOAD')
      return reply(400, 'invalid_params', 'post_mode is invalid.');
    const info = body.post_info ?? {};
    const source = body.source_info ?? {};
    if (source.source !== 'PULL_FROM_URL')
      return reply(400, 'invalid_params', 'Photo posts take source PULL_FROM_URL only.');
    const urls = source.photo_images;
    if (!Array.isArray(urls) || urls.length < 1 || urls.length > 35 || urls.some((u) => typeof u !== 'string'))
      return reply(400, 'invalid_params', 'photo_images must list 1 to 35 URLs.');
    const cover = source.photo_cover_index;
    if (typeof cover !== 'number' || !Number.isInteger(cover) || cover < 0 || cover >= urls.length)
      return reply(400, 'invalid_params', 'photo_cover_index must be an index of photo_images.');
    if (typeof info.title === 'string' && [...info.title].length > 90)
      return reply(400, 'invalid_params', 'title is longer than 90 characters.');
    if (typeof info.description === 'string' && [...info.description].length > 4000)
      return reply(400, 'invalid_params', 'description is longer than 4000 characters.');
    const refused = this.postInfoRefusal(info, creator);
    if (refused) return refused;
    const photos: FakeTikTokPost['photos'] = [];
    const bytes: Buffer[] = [];
    for (const url of urls as string[]) {
      const res = await fetch(url);
      const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
      const data = Buffer.from(await res.arrayBuffer());
      if (!res.ok || !['image/jpeg', 'image/webp'].includes(type) || data.length > 20 * MB) {
        return reply(400, 'invalid_params', `photo_images could not be used: ${url} (HTTP ${res.status}, ${type}).`);
      }
      photos.push({ contentType: type, bytes: data.length });
      bytes.push(data);
    }
    const size = bytes.reduce((n, b) => n + b.length, 0);
    const post: FakeTikTokPost = {
      publishId: `p_pub_url~v2.${randomBytes(8).toString('hex')}`,
      openId: creator.openId,
      postInfo: info,
      source: 'PULL_FROM_URL',
      mediaType: 'PHOTO',
      photos,
      photoCoverIndex: cover,
      size,
      chunkSize: 0,
      totalChunkCount: 0,
      chunksReceived: 0,
      bytes,
      receivedBytes: size,
      pollsLeft: this.opts.processingPolls ?? 1,
      status: 'PROCESSING_DOWNLOAD',
      failReason: null,
      postId: null,
      counts: { likes: 0, reposts: 0, replies: 0, views: 0 },
    };
    this.posts.push(post);
    return ok({ publish_id: post.publishId });
  }

  private upload(req: FakeRequest): FakeReply {
    const post = this.posts.find((p) => p.publishId === req.url.searchParams.get('upload_id'));
    if (!post || post.source !== 'FILE_UPLOAD') return reply(404, 'invalid_params', 'Unknown upload.');
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
    if (!m || Number(m[3]) !== post.size) return reply(400, 'invalid_file_upload', 'Content-Range is invalid.');
    const [first, last] = [Number(m[1]), Number(m[2])];
    const index = post.chunksReceived;
    const expectedFirst = index * post.chunkSize;
    const expectedLast = index === post.totalChunkCount - 1 ? post.size - 1 : expectedFirst + post.chunkSize - 1;
    if (first !== expectedFirst || last !== expectedLast || req.body.length !== last - first + 1) {
      return reply(400, 'invalid_file_upload', `Chunk ${index} must be bytes ${expectedFirst}-${expectedLast}.`);
    }
    if (this.interruptChunks > 0) {
      this.interruptChunks -= 1;
      return reply(503, 'internal_error', 'Upload interrupted.');
    }
    post.bytes.push(Buffer.from(req.body));
    post.receivedBytes += req.body.length;
    post.chunksReceived += 1;
    return { status: post.chunksReceived === post.totalChunkCount ? 201 : 206 };
  }

  private status(req: FakeRequest, creator: FakeTikTokCreator): FakeReply {
    const body = JSON.parse(req.body.toString() || '{}') as { publish_id?: string };
    const post = this.posts.find((p) => p.publishId === body.publish_id && p.openId === creator.openId);
    if (!post) return reply(400, 'invalid_publish_id', 'publish_id does not exist.');
    if (this.rateLimitedStatus > 0) {
      this.rateLimitedStatus -= 1;
      return reply(429, 'rate_limit_exceeded', 'API rate limit was exceeded.');
    }
    const complete = post.receivedBytes === post.size && post.size > 0;
    if (complete && post.status.startsWith('PROCESSING') && !this.processingHeld) {
      if (post.pollsLeft > 0) post.pollsLeft -= 1;
      else if (this.failPublish) {
        post.status = 'FAILED';
        post.failReason = this.failPublish;
        this.failPublish = null;
      } else {
        post.status = 'PUBLISH_COMPLETE';
        if (post.postInfo.privacy_level !== 'SELF_ONLY') post.postId = String(this.nextPost++);
      }
    }
    const answer = ok({
      status: post.status,
      ...(post.failReason ? { fail_reason: post.failReason } : {}),
      ...(post.postId ? { publicaly_available_post_id: ['@POST_ID@'] } : {}),
      uploaded_bytes: post.source === 'FILE_UPLOAD' ? post.receivedBytes : 0,
      downloaded_bytes: post.source === 'PULL_FROM_URL' ? post.receivedBytes : 0,
    });
    // TikTok sends post ids as int64 JSON numbers, beyond a double's exact integers (as the real API does).
    const json = JSON.stringify(answer.body).replace('"@POST_ID@"', post.postId ?? '');
    return { status: 200, raw: Buffer.from(json), headers: { 'content-type': 'application/json; charset=utf-8' } };
  }
}

/** TikTok's FILE_UPLOAD chunk rules; null when they hold. */
export function chunkProblem(size: number, chunkSize: number, count: number): string | null {
  if (!Number.isInteger(size) || size <= 0) return 'video_size is required.';
  if (!Number.isInteger(chunkSize) || !Number.isInteger(count) || count < 1 || count > 1000)
    return 'chunk_size and total_chunk_count are required (1 to 1000 chunks).';
  if (size < 5 * MB)
    return chunkSize === size && count === 1
      ? null
      : 'A video under 5 MB is uploaded whole: chunk_size must equal video_size.';
  if (chunkSize < 5 * MB || chunkSize > 64 * MB) return 'chunk_size must be 5 MB to 64 MB.';
  if (count !== Math.floor(size / chunkSize)) return 'total_chunk_count must be video_size / chunk_size rounded down.';
  if (size - (count - 1) * chunkSize > 128 * MB) return 'The last chunk may be at most 128 MB.';
  return null;
}

/** TikTokFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  // Published at the first status read: the contract's adapter-alone cases expect a post at once
  // (the processing wait has its own specs).
  const fake = new TikTokFake({ processingPolls: 0 });
  return {
    ...oauthContractFake(fake, {
      publishRoute: TIKTOK_ROUTES.init,
      rejectStatus: 400,
      revocation: {
        requests: () => fake.revocations,
        lastAccessToken: () => fake.lastAccessToken,
        expected: (token) => [
          {
            method: 'POST',
            path: '/v2/oauth/revoke/',
            form: { client_key: fake.clientKey, client_secret: fake.clientSecret, token },
          },
        ],
      },
      described: describedContract(fake, () => ({
        method: 'POST',
        url: `${fake.baseUrl}/v2/post/publish/video/init/`,
        headers: { 'content-type': 'application/json; charset=UTF-8', authorization: `Bearer ${fake.issueToken()}` },
        body: JSON.stringify({
          post_info: { title: 'renamed', privacy_level: 'PUBLIC_TO_EVERYONE' },
          source: { source: 'PULL_FROM_URL', video_url: 'https://example.com/v.mp4' },
        }),
        renamed: { from: 'source_info', to: 'source' },
      })),
      posts: () =>
        fake.posts
          .filter((p) => p.status === 'PUBLISH_COMPLETE')
          .map((p) => ({
            platformPostId: p.postId ?? p.publishId,
            text: typeof p.postInfo.title === 'string' ? p.postInfo.title : '',
            mediaCount: p.mediaType === 'PHOTO' ? p.photos.length : 1,
            inReplyTo: null,
          })),
    }),
    requiresVideo: true,
    publishOptions: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
  };
}
