import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';

/**
 * What the fakes of Meta's networks (threads.fake.ts, instagram.fake.ts, facebook.fake.ts) share:
 * the authorization window that consents at once, short-lived then long-lived access tokens, Graph
 * error bodies (`{error: {message, type, code, error_subcode, fbtrace_id}}`), throttling answered
 * with X-Business-Use-Case-Usage, and the media containers of Threads and Instagram, whose images
 * the fake downloads from the `image_url` it is given (our signed public URL, over loopback), as
 * Meta's servers do.
 */

export interface MetaFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Long-lived token lifetime in seconds (Meta: 60 days). */
  longLivedTtlSeconds?: number;
  /** `estimated_time_to_regain_access` (minutes) of injected throttling. Default 1. */
  rateLimitMinutes?: number;
  /** Status reads answered IN_PROGRESS before an image container is FINISHED. Default 1. */
  processingPolls?: number;
  /** Status reads answered IN_PROGRESS before a video container is FINISHED. Default 3. */
  videoProcessingPolls?: number;
  /** The network's video limits the fake enforces after downloading (ERROR with its reason). */
  maxVideoBytes?: number;
  maxVideoSeconds?: number;
  minVideoSeconds?: number;
  /** Delay of the refresh answers, in ms (to widen races). Default 0. */
  refreshLatencyMs?: number;
}

export interface MetaFakeAccount {
  id: string;
  username: string;
  name: string;
}

export interface FakeMetaToken {
  userId: string;
  kind: 'short' | 'long' | 'page';
  /** For page tokens: the page they act as. */
  pageId?: string;
  /** Null: never expires (page tokens from a long-lived user token). */
  expiresAt: number | null;
  issuedAt: number;
  scopes: string[];
}

interface Grant {
  userId: string;
  redirectUri: string;
  challenge: string | null;
  scope: string;
  used: boolean;
}

/** An image the fake downloaded from an `image_url`. */
export interface FakeImageFetch {
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  /** What the bytes are, by their signature: 'image/jpeg', 'image/png' or 'unknown'. */
  sniffed: string;
}

/** A video the fake downloaded from a `video_url` (or a `file_url`). */
export interface FakeVideoFetch {
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  /** What the bytes are: 'video/mp4' (an ISO BMFF file: MP4 or MOV), 'video/webm' or 'unknown'. */
  sniffed: string;
  /** The duration the file's movie header states, in seconds; null when it has none. */
  durationSeconds: number | null;
  sha256: string;
}

/** Why a network refuses a downloaded video, for its own error message. */
export type FakeVideoRefusal = 'download' | 'format' | 'size' | 'duration' | 'processing';

export type FakeContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

export interface FakeContainer {
  id: string;
  ownerId: string;
  mediaType: string;
  text: string;
  imageUrl: string | null;
  altText: string | null;
  isCarouselItem: boolean;
  children: string[];
  replyToId: string | null;
  videoUrl: string | null;
  video: FakeVideoFetch | null;
  /** Instagram Reels: `cover_url` and `share_to_feed` as given. */
  coverUrl: string | null;
  shareToFeed: string | null;
  status: FakeContainerStatus;
  errorMessage: string | null;
  pollsLeft: number;
  image: FakeImageFetch | null;
  mediaId: string | null;
}

export interface FakeMetaPost {
  id: string;
  ownerId: string;
  text: string;
  /** The images as the network received them. */
  images: FakeImageFetch[];
  /** The videos as the network received them. */
  videos?: FakeVideoFetch[];
  /** The media type of the published container (IMAGE, VIDEO, REELS, CAROUSEL, TEXT). */
  mediaType?: string;
  altTexts: Array<string | null>;
  link: string | null;
  replyToId: string | null;
  containerId: string | null;
  createdAt: number;
  permalink: string;
  counts: FakeCounts & { impressions: number; saves?: number };
}

/** A comment on a post (`POST /{object-id}/comments`), as the network keeps it. */
export interface FakeMetaComment {
  id: string;
  /** The post (Facebook) or media (Instagram) commented on. */
  objectId: string;
  /** The account that commented (the Page or the Instagram account). */
  fromId: string;
  message: string;
  createdAt: number;
}

/** One publish the network carried out (container published, or a post created). */
export interface FakePublish {
  containerId: string | null;
  mediaId: string;
  at: number;
}

/** The duration in an MP4/MOV movie header (`mvhd`), in seconds; null when there is none. */
export function mp4DurationSeconds(bytes: Buffer): number | null {
  const at = bytes.indexOf('mvhd', 0, 'latin1');
  if (at < 4 || at + 36 > bytes.length) return null;
  const version = bytes[at + 4];
  const timescale = version === 1 ? bytes.readUInt32BE(at + 24) : bytes.readUInt32BE(at + 16);
  const duration = version === 1 ? Number(bytes.readBigUInt64BE(at + 28)) : bytes.readUInt32BE(at + 20);
  return timescale > 0 ? duration / timescale : null;
}

const sniffVideo = (bytes: Buffer): string =>
  bytes.subarray(4, 8).toString('latin1') === 'ftyp'
    ? 'video/mp4'
    : bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))
      ? 'video/webm'
      : 'unknown';

const sniff = (bytes: Buffer): string =>
  bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
    ? 'image/jpeg'
    : bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      ? 'image/png'
      : 'unknown';

export function graphError(
  status: number,
  code: number,
  message: string,
  extra: { type?: string; subcode?: number; headers?: Record<string, string>; transient?: boolean } = {},
): FakeReply {
  return {
    status,
    headers: extra.headers,
    body: {
      error: {
        message,
        type: extra.type ?? (code === 190 || code === 102 ? 'OAuthException' : 'GraphMethodException'),
        code,
        ...(extra.subcode !== undefined ? { error_subcode: extra.subcode } : {}),
        ...(extra.transient !== undefined ? { is_transient: extra.transient } : {}),
        fbtrace_id: `A${randomBytes(8).toString('base64url')}`,
      },
    },
  };
}

export const INVALID_TOKEN = graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
export const EXPIRED_TOKEN = graphError(
  400,
  190,
  'Error validating access token: Session has expired on Saturday, 21-Nov-26 10:00:00 PST.',
  { subcode: 463 },
);
export const REVOKED_TOKEN = graphError(
  400,
  190,
  'Error validating access token: The user has not authorized application.',
  { subcode: 458 },
);

export abstract class MetaGraphFake extends FakeHttpServer {
  readonly posts: FakeMetaPost[] = [];
  readonly comments: FakeMetaComment[] = [];
  readonly containers = new Map<string, FakeContainer>();
  /** Every publish carried out, oldest first (two for one post would be a double post). */
  readonly publishLog: FakePublish[] = [];
  readonly imageFetches: FakeImageFetch[] = [];
  /** Every video download, oldest first (two for one post would be a second upload). */
  readonly videoFetches: FakeVideoFetch[] = [];
  /** Authorization requests received (query parameters), oldest first. */
  readonly authorizations: Array<Record<string, string>> = [];
  /** Long-lived token exchanges and refreshes answered. */
  exchangeCount = 0;
  refreshCount = 0;
  readonly clientId: string;
  readonly clientSecret: string;
  protected readonly tokens = new Map<string, FakeMetaToken>();
  protected readonly grants = new Map<string, Grant>();
  protected nextId = 17_900_000_000_000_000n;
  private failAfterPublish: number[] = [];
  private throttles: Array<{ route: string; code: number; status: number }> = [];
  private denyNextConsent = false;
  private downloadFailures = 0;
  private slowContainers: number[] = [];
  protected videoFailures = 0;

  protected constructor(
    readonly accounts: MetaFakeAccount[],
    protected readonly opts: MetaFakeOptions = {},
  ) {
    super(opts);
    this.clientId = opts.clientId ?? 'meta-client-id';
    this.clientSecret = opts.clientSecret ?? 'meta-client-secret';
  }

  /** Image types the network takes from an `image_url`. */
  protected abstract readonly acceptedImageTypes: readonly string[];
  /** The scopes the authorization window grants, by default every one asked for. */
  protected grantedScopes(asked: string[]): string[] {
    return asked;
  }

  // --- test hooks --------------------------------------------------------------------------

  /** Issues a token directly (adapter-level tests): long-lived by default. */
  issueToken(userId = this.accounts[0].id, kind: FakeMetaToken['kind'] = 'long', scopes: string[] = []): string {
    const token = `${kind === 'page' ? 'EAAP' : 'EAAL'}${randomBytes(12).toString('hex')}`;
    const ttl = kind === 'short' ? 3600 : (this.opts.longLivedTtlSeconds ?? 60 * 86_400);
    this.tokens.set(token, {
      userId,
      kind,
      expiresAt: kind === 'page' ? null : Date.now() + ttl * 1000,
      issuedAt: Date.now(),
      scopes,
    });
    return token;
  }

  /**
   * The test hook standing in for a user who consents in the authorization window: requests the
   * authorization URL and returns the Location it redirects to (our callback with `code` and `state`).
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

  /** Every user token expires now (page tokens do not expire). */
  expireTokens(): void {
    for (const t of this.tokens.values()) if (t.expiresAt !== null) t.expiresAt = Date.now() - 1000;
  }

  /** Tokens look `ms` older (the long-lived refresh needs a day-old token). */
  ageTokens(ms: number): void {
    for (const t of this.tokens.values()) t.issuedAt -= ms;
  }

  /** Every token stops working (the user removed the app or changed their password). */
  revokeAll(): void {
    this.tokens.clear();
  }

  /** The next publish is carried out, then answered with `status` (the outcome is unknown to the client). */
  failAfterPublishNext(status = 503): void {
    this.failAfterPublish.push(status);
  }

  /** The next call to `route` is throttled: Graph error `code` (4 app, 17 user, 32 page, 80001... BUC) with usage headers. */
  throttleNext(route: string, code = 4, status = 400): void {
    this.throttles.push({ route, code, status });
  }

  setCounts(id: string, counts: Partial<FakeMetaPost['counts']>): void {
    const post = this.posts.find((p) => p.id === id);
    if (!post) throw new Error(`No post ${id}`);
    Object.assign(post.counts, counts);
  }

  /** The next image download fails (the container ends in ERROR, as when Meta cannot fetch the URL). */
  failNextDownload(): void {
    this.downloadFailures++;
  }

  /** The next video container fails its processing (ERROR once its IN_PROGRESS reads are over). */
  failNextVideo(): void {
    this.videoFailures++;
  }

  /** Changes the video limits the fake enforces (a network refusing by size or duration). */
  limitVideos(limits: Pick<MetaFakeOptions, 'maxVideoBytes' | 'maxVideoSeconds' | 'minVideoSeconds'>): void {
    Object.assign(this.opts, limits);
  }

  /** A container (not yet published) expires, as Meta's do 24 hours after they were created. */
  expireContainer(id: string): void {
    const container = this.containers.get(id);
    if (!container) throw new Error(`No container ${id}`);
    container.status = 'EXPIRED';
  }

  /** Containers holding a video (one per video sent; more would be a second upload). */
  videoContainers(): FakeContainer[] {
    return [...this.containers.values()].filter((c) => c.videoUrl !== null);
  }

  /** The network's reason for refusing a downloaded video, in its own words. */
  protected videoRefusal(reason: FakeVideoRefusal): string {
    return reason === 'duration'
      ? 'INVALID_DURATION'
      : reason === 'download'
        ? 'FAILED_DOWNLOADING_VIDEO'
        : 'FAILED_PROCESSING_VIDEO';
  }

  /** The next container created stays IN_PROGRESS for `polls` status reads. */
  slowNextContainer(polls: number): void {
    this.slowContainers.push(polls);
  }

  /** The processing reads a test asked the next container (or video) to take, if it did. */
  protected takeSlow(): number | undefined {
    return this.slowContainers.shift();
  }

  /** Publishes of one container (more than one would be a double post). */
  publishesOf(containerId: string): FakePublish[] {
    return this.publishLog.filter((p) => p.containerId === containerId);
  }

  // --- shared handling ---------------------------------------------------------------------

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return REVOKED_TOKEN;
    if (status === 429) return this.throttled(4, 429);
    if (status === 403) return graphError(403, 10, '(#10) Application does not have permission for this action');
    if (status === 400) return graphError(400, 100, '(#100) Invalid parameter', { type: 'OAuthException' });
    return graphError(status, 2, 'An unexpected error has occurred. Please retry your request later.', {
      transient: true,
    });
  }

  /** A throttled answer, with the usage headers Meta sends. */
  protected throttled(code: number, status = 400): FakeReply {
    const minutes = this.opts.rateLimitMinutes ?? 1;
    const usage = JSON.stringify({
      [this.accounts[0].id]: [
        { type: 'pages', call_count: 100, total_cputime: 12, total_time: 15, estimated_time_to_regain_access: minutes },
      ],
    });
    return graphError(
      status,
      code,
      code === 4 ? '(#4) Application request limit reached' : `(#${code}) User request limit reached`,
      {
        headers: {
          'x-business-use-case-usage': usage,
          'x-app-usage': '{"call_count":100,"total_cputime":12,"total_time":15}',
        },
      },
    );
  }

  /** An injected throttle for this request, if one is pending. */
  protected takeThrottle(req: FakeRequest): FakeReply | undefined {
    const index = this.throttles.findIndex((t) => t.route === req.route);
    if (index < 0) return undefined;
    const [t] = this.throttles.splice(index, 1);
    return this.throttled(t.code, t.status);
  }

  /** Graph parameters: the query and, for a form body, its fields. */
  protected params(req: FakeRequest): URLSearchParams {
    const params = new URLSearchParams(req.url.searchParams);
    const type = String(req.headers['content-type'] ?? '');
    if (req.body.length > 0 && type.startsWith('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(req.body.toString())) params.set(k, v);
    }
    return params;
  }

  /** The token of a Graph call (Bearer header or access_token parameter), or the error to answer. */
  protected authenticate(req: FakeRequest): { token: FakeMetaToken } | { error: FakeReply } {
    const bearer = /^(?:Bearer|OAuth) (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const raw = bearer ?? this.params(req).get('access_token') ?? '';
    const token = this.tokens.get(raw);
    if (!token) return { error: raw ? REVOKED_TOKEN : INVALID_TOKEN };
    if (token.expiresAt !== null && token.expiresAt <= Date.now()) return { error: EXPIRED_TOKEN };
    return { token };
  }

  /** The authorization window: consents at once for the first account (or refuses after denyNext). */
  protected authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId) return { status: 400, raw: Buffer.from('Invalid client_id') };
    if (q.response_type !== 'code' || !q.redirect_uri || !q.scope) {
      return { status: 400, raw: Buffer.from('Invalid authorization request') };
    }
    const target = new URL(q.redirect_uri);
    if (q.state) target.searchParams.set('state', q.state);
    if (this.denyNextConsent) {
      this.denyNextConsent = false;
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_reason', 'user_denied');
      return { status: 302, headers: { location: target.toString() } };
    }
    const code = `AQ${randomBytes(16).toString('base64url')}`;
    const asked = q.scope.split(/[,\s]+/).filter(Boolean);
    this.grants.set(code, {
      userId: this.accounts[0].id,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge_method === 'S256' ? (q.code_challenge ?? null) : null,
      scope: this.grantedScopes(asked).join(','),
      used: false,
    });
    target.searchParams.set('code', code);
    // Meta appends "#_" to the redirect; a browser drops the fragment before calling us.
    return { status: 302, headers: { location: `${target.toString()}#_` } };
  }

  /**
   * The code exchange: client credentials in the parameters, the redirect URI as in the window, and
   * the PKCE verifier when a challenge was sent. Returns the grant or the error to answer.
   */
  protected redeemCode(params: URLSearchParams): { grant: Grant } | { error: FakeReply } {
    if (params.get('client_id') !== this.clientId || params.get('client_secret') !== this.clientSecret) {
      return { error: graphError(400, 101, 'Error validating client secret.', { type: 'OAuthException' }) };
    }
    const grant = this.grants.get(params.get('code') ?? '');
    if (!grant || grant.used || grant.redirectUri !== params.get('redirect_uri')) {
      return {
        error: graphError(400, 100, 'Invalid verification code format.', { type: 'OAuthException', subcode: 36007 }),
      };
    }
    if (grant.challenge) {
      const verifier = params.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
        return { error: graphError(400, 100, 'Invalid code verifier', { type: 'OAuthException' }) };
      }
    }
    grant.used = true;
    return { grant };
  }

  /** `GET /access_token?grant_type=<exchange>&client_secret&access_token=<short>` (Threads, Instagram). */
  protected exchangeLongLived(params: URLSearchParams, grantType: string): FakeReply {
    if (params.get('grant_type') !== grantType) {
      return graphError(400, 100, `Unsupported grant_type, expected ${grantType}`, { type: 'OAuthException' });
    }
    if (params.get('client_secret') !== this.clientSecret) {
      return graphError(400, 101, 'Error validating client secret.', { type: 'OAuthException' });
    }
    const short = this.tokens.get(params.get('access_token') ?? '');
    if (!short || short.kind !== 'short' || (short.expiresAt ?? 0) <= Date.now()) return INVALID_TOKEN;
    this.exchangeCount++;
    const token = this.issueToken(short.userId, 'long', short.scopes);
    return {
      status: 200,
      body: { access_token: token, token_type: 'bearer', expires_in: this.opts.longLivedTtlSeconds ?? 5_184_000 },
    };
  }

  /**
   * `GET /refresh_access_token?grant_type=<refresh>&access_token=<long>` (Threads, Instagram): a
   * long-lived token at least 24 hours old and not expired gets a new one valid 60 days.
   */
  protected async refreshLongLived(params: URLSearchParams, grantType: string): Promise<FakeReply> {
    if (this.opts.refreshLatencyMs) await new Promise((r) => setTimeout(r, this.opts.refreshLatencyMs));
    if (params.get('grant_type') !== grantType) {
      return graphError(400, 100, `Unsupported grant_type, expected ${grantType}`, { type: 'OAuthException' });
    }
    const raw = params.get('access_token') ?? '';
    const current = this.tokens.get(raw);
    if (!current || current.kind !== 'long') return REVOKED_TOKEN;
    if (current.expiresAt !== null && current.expiresAt <= Date.now()) return EXPIRED_TOKEN;
    if (Date.now() - current.issuedAt < 24 * 3600_000) {
      return graphError(400, 100, 'The access token cannot be refreshed: it is less than 24 hours old', {
        type: 'OAuthException',
      });
    }
    this.refreshCount++;
    const ttl = this.opts.longLivedTtlSeconds ?? 5_184_000;
    // Meta renews the token: the same string stays valid 60 days from now, or a new one is issued.
    const token = this.issueToken(current.userId, 'long', current.scopes);
    this.tokens.delete(raw);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: ttl } };
  }

  /** Creates a comment of `fromId` on `objectId` (the object must exist: the caller checks). */
  protected addComment(objectId: string, fromId: string, message: string): FakeMetaComment {
    const comment = { id: this.newId(), objectId, fromId, message, createdAt: Date.now() };
    this.comments.push(comment);
    return comment;
  }

  newId(): string {
    return String(this.nextId++);
  }

  /**
   * Creates a container; an image is downloaded from `image_url` now (a refused download or type
   * makes the container ERROR, as Meta reports it on the status).
   */
  protected async createContainer(ownerId: string, fields: Partial<FakeContainer>): Promise<FakeContainer> {
    const container: FakeContainer = {
      id: this.newId(),
      ownerId,
      mediaType: fields.mediaType ?? 'TEXT',
      text: fields.text ?? '',
      imageUrl: fields.imageUrl ?? null,
      altText: fields.altText ?? null,
      isCarouselItem: fields.isCarouselItem ?? false,
      children: fields.children ?? [],
      replyToId: fields.replyToId ?? null,
      videoUrl: fields.videoUrl ?? null,
      video: null,
      coverUrl: fields.coverUrl ?? null,
      shareToFeed: fields.shareToFeed ?? null,
      status: 'IN_PROGRESS',
      errorMessage: null,
      pollsLeft:
        this.slowContainers.shift() ??
        (fields.videoUrl
          ? (this.opts.videoProcessingPolls ?? 3)
          : fields.imageUrl
            ? (this.opts.processingPolls ?? 1)
            : 0),
      image: null,
      mediaId: null,
    };
    if (container.videoUrl) {
      const video = await this.downloadVideo(container.videoUrl);
      container.video = video;
      const refusal = this.refuseVideo(video);
      if (refusal) container.errorMessage = this.videoRefusal(refusal);
      else if (this.videoFailures > 0) {
        this.videoFailures--;
        container.errorMessage = this.videoRefusal('processing');
      }
    }
    if (container.imageUrl) {
      const image = await this.download(container.imageUrl);
      container.image = image;
      if (image.status !== 200) container.errorMessage = 'FAILED_DOWNLOADING_IMAGE';
      else if (!this.acceptedImageTypes.includes(image.contentType) || image.sniffed !== image.contentType) {
        container.errorMessage = `UNSUPPORTED_IMAGE_FORMAT: ${image.contentType} (${image.sniffed})`;
      }
    }
    this.containers.set(container.id, container);
    return container;
  }

  /** A container's status as a read sees it (IN_PROGRESS for the first `processingPolls` reads). */
  protected readStatus(container: FakeContainer): FakeContainerStatus {
    if (container.status === 'IN_PROGRESS') {
      if (container.pollsLeft > 0) {
        container.pollsLeft--;
        return 'IN_PROGRESS';
      }
      container.status = container.errorMessage ? 'ERROR' : 'FINISHED';
    }
    return container.status;
  }

  /**
   * Publishes a finished container of `ownerId` as a post (its carousel items' images with it), logs
   * it, and returns the reply: the media id, or the error.
   */
  protected async publishContainer(
    ownerId: string,
    creationId: string,
    permalink: (id: string) => string,
  ): Promise<FakeReply> {
    const container = this.containers.get(creationId);
    if (!container || container.ownerId !== ownerId || container.isCarouselItem) {
      return graphError(400, 100, `(#100) Param creation_id ${creationId} is not a valid container`);
    }
    if (container.status === 'PUBLISHED') {
      return graphError(400, 100, '(#100) The media container was already published', { subcode: 2207008 });
    }
    if (this.readStatus(container) !== 'FINISHED') {
      return graphError(400, 9007, 'Media ID is not available', { subcode: 2207027 });
    }
    const items =
      container.mediaType === 'CAROUSEL' ? container.children.map((c) => this.containers.get(c)!) : [container];
    const post: FakeMetaPost = {
      id: this.newId(),
      ownerId,
      text: container.text,
      mediaType: container.mediaType,
      videos: items.flatMap((c) => (c.video ? [c.video] : [])),
      images: items.flatMap((c) => (c.image ? [c.image] : [])),
      altTexts: items.filter((c) => c.image).map((c) => c.altText),
      link: null,
      replyToId: container.replyToId,
      containerId: container.id,
      createdAt: Date.now(),
      permalink: '',
      counts: { likes: 0, reposts: 0, replies: 0, quotes: 0, impressions: 0 },
    };
    post.permalink = permalink(post.id);
    this.posts.push(post);
    container.status = 'PUBLISHED';
    container.mediaId = post.id;
    this.publishLog.push({ containerId: container.id, mediaId: post.id, at: Date.now() });
    return this.afterPublish({ status: 200, body: { id: post.id } });
  }

  /** A created post's answer, held or replaced by an injected failure when a test asked for it. */
  protected async afterPublish(reply: FakeReply): Promise<FakeReply> {
    await this.waitIfHeld();
    const failStatus = this.failAfterPublish.shift();
    return failStatus !== undefined ? this.injectedFailure(failStatus) : reply;
  }

  /** Posts published in the last 24 hours by `ownerId` (replies counted apart). */
  protected usage(ownerId: string): { posts: number; replies: number } {
    const since = Date.now() - 86_400_000;
    const recent = this.posts.filter((p) => p.ownerId === ownerId && p.createdAt >= since);
    return { posts: recent.filter((p) => !p.replyToId).length, replies: recent.filter((p) => p.replyToId).length };
  }

  /** Why the network refuses a downloaded video (by its documented limits), or null. */
  protected refuseVideo(video: FakeVideoFetch): FakeVideoRefusal | null {
    if (video.status !== 200) return 'download';
    if (video.sniffed !== 'video/mp4') return 'format';
    if (this.opts.maxVideoBytes !== undefined && video.bytes > this.opts.maxVideoBytes) return 'size';
    const seconds = video.durationSeconds;
    if (seconds === null) return 'format';
    if (this.opts.maxVideoSeconds !== undefined && seconds > this.opts.maxVideoSeconds) return 'duration';
    if (this.opts.minVideoSeconds !== undefined && seconds < this.opts.minVideoSeconds) return 'duration';
    return null;
  }

  /** Downloads a video as Meta does: a plain GET of the public URL, read whole. */
  protected async downloadVideo(url: string): Promise<FakeVideoFetch> {
    let fetched: FakeVideoFetch;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      const bytes = Buffer.from(await res.arrayBuffer());
      fetched = {
        url,
        status: res.status,
        contentType: (res.headers.get('content-type') ?? '').split(';')[0].trim(),
        bytes: bytes.length,
        sniffed: sniffVideo(bytes),
        durationSeconds: sniffVideo(bytes) === 'video/mp4' ? mp4DurationSeconds(bytes) : null,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
    } catch {
      fetched = { url, status: 0, contentType: '', bytes: 0, sniffed: 'unknown', durationSeconds: null, sha256: '' };
    }
    this.videoFetches.push(fetched);
    return fetched;
  }

  /** Downloads an image as Meta does: a plain GET of the public URL. */
  protected async download(url: string): Promise<FakeImageFetch> {
    let fetched: FakeImageFetch;
    if (this.downloadFailures > 0) {
      this.downloadFailures--;
      fetched = { url, status: 0, contentType: '', bytes: 0, sniffed: 'unknown' };
      this.imageFetches.push(fetched);
      return fetched;
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const bytes = Buffer.from(await res.arrayBuffer());
      const length = res.headers.get('content-length');
      fetched = {
        url,
        status: length !== null && Number(length) !== bytes.length ? 599 : res.status,
        contentType: (res.headers.get('content-type') ?? '').split(';')[0].trim(),
        bytes: bytes.length,
        sniffed: sniff(bytes),
      };
    } catch {
      fetched = { url, status: 0, contentType: '', bytes: 0, sniffed: 'unknown' };
    }
    this.imageFetches.push(fetched);
    return fetched;
  }

  /** The route key of a versioned Graph path: `/v1.0/123/threads` → `/v:version/:id/threads`. */
  protected graphPath(path: string): { version: string; segments: string[] } | undefined {
    const m = /^\/(v\d+\.\d+)\/(.*)$/.exec(path);
    if (!m) return undefined;
    return { version: m[1], segments: m[2].split('/').filter(Boolean) };
  }

  /** Insights values as Graph answers them. */
  protected insights(post: FakeMetaPost, names: string[], values: Record<string, number>): FakeReply {
    return {
      status: 200,
      body: {
        data: names.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] ?? 0 }],
          title: name,
          description: `${name} of the post`,
          id: `${post.id}/insights/${name}/lifetime`,
        })),
      },
    };
  }
}
