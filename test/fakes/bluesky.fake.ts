import { createHash, randomBytes } from 'node:crypto';
import { type ProviderContractFake, describedContract } from './provider-contract';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { blueskyDescription } from './descriptions/networks';
import { FakeVideoOptions, FakeVideoProcessing } from './fake-video-processing';

export type { FakeCounts, FakeHold, FakeRequestLogEntry } from './fake-http-server';

export interface BlueskyFakeAccountOptions {
  /** What createSession accepts besides the handle and DID (e.g. an email). */
  identifier: string;
  password: string;
  /** Default: the identifier. */
  handle?: string;
  /** Default: did:plc derived from the handle. */
  did?: string;
  displayName?: string;
  avatar?: string;
}

export interface BlueskyFakeOptions extends FakeServerOptions {
  /** Default [{ identifier: 'alice.test', password: 'app-pass', handle: 'alice.test' }]. */
  accounts?: BlueskyFakeAccountOptions[];
  /** Extra handles resolveHandle knows (handle -> DID), besides the accounts. */
  knownHandles?: Record<string, string>;
  /**
   * Answer to createRecord when the rkey is taken. 'internal-error' (default) is what the reference
   * PDS answers today (500 InternalServerError); 'invalid-request' is a 400 InvalidRequest error.
   */
  duplicateRkey?: 'internal-error' | 'invalid-request';
  /** uploadBlob size limit (PDS default 5 MB). */
  maxBlobBytes?: number;
  /** The video service's processing (getJobStatus answers JOB_STATE_ENCODING meanwhile): polls before ready, default 2; 3 minutes at most. */
  video?: FakeVideoOptions;
}

export interface FakeBlueskyAccount {
  identifier: string;
  password: string;
  handle: string;
  did: string;
  displayName: string;
  avatar: string | null;
  /** Set by revokeAccount/revokeAll: the app password no longer works. */
  passwordRevoked: boolean;
}

export interface FakeBlueskyBlob {
  cid: string;
  did: string;
  mimeType: string;
  size: number;
  bytes: Buffer;
}

export interface FakeBlueskyPost {
  uri: string;
  cid: string;
  did: string;
  rkey: string;
  record: Record<string, unknown>;
  indexedAt: string;
  counts: FakeCounts;
}

interface SessionToken {
  did: string;
  kind: 'access' | 'refresh';
  expired: boolean;
  revoked: boolean;
}

/** XRPC methods served (also the `route` values accepted by failNext / setLatency). */
export const BLUESKY_ROUTES = {
  createSession: 'com.atproto.server.createSession',
  refreshSession: 'com.atproto.server.refreshSession',
  getProfile: 'app.bsky.actor.getProfile',
  resolveHandle: 'com.atproto.identity.resolveHandle',
  uploadBlob: 'com.atproto.repo.uploadBlob',
  createRecord: 'com.atproto.repo.createRecord',
  getRecord: 'com.atproto.repo.getRecord',
  getPosts: 'app.bsky.feed.getPosts',
  getServiceAuth: 'com.atproto.server.getServiceAuth',
  /** The video service (video.bsky.app), served by the same fake. */
  uploadVideo: 'app.bsky.video.uploadVideo',
  getJobStatus: 'app.bsky.video.getJobStatus',
  startUpload: 'app.bsky.video.startUpload',
  uploadPart: 'app.bsky.video.uploadPart',
  finishUpload: 'app.bsky.video.finishUpload',
} as const;

/** The video service's size cap: app.bsky.embed.video `video.maxSize` (300,000,000 bytes). */
export const BLUESKY_FAKE_MAX_VIDEO_BYTES = 300_000_000;
/** Part size the fake's multipart upload hands out (startUpload's `partSizeBytes`); tests may change it. */
export const BLUESKY_FAKE_PART_BYTES = { value: 5 * 1024 * 1024 };

const METHODS: Record<string, 'GET' | 'POST'> = {
  [BLUESKY_ROUTES.createSession]: 'POST',
  [BLUESKY_ROUTES.refreshSession]: 'POST',
  [BLUESKY_ROUTES.getProfile]: 'GET',
  [BLUESKY_ROUTES.resolveHandle]: 'GET',
  [BLUESKY_ROUTES.uploadBlob]: 'POST',
  [BLUESKY_ROUTES.createRecord]: 'POST',
  [BLUESKY_ROUTES.getRecord]: 'GET',
  [BLUESKY_ROUTES.getPosts]: 'GET',
  [BLUESKY_ROUTES.getServiceAuth]: 'GET',
  [BLUESKY_ROUTES.uploadVideo]: 'POST',
  [BLUESKY_ROUTES.getJobStatus]: 'GET',
  [BLUESKY_ROUTES.startUpload]: 'POST',
  [BLUESKY_ROUTES.uploadPart]: 'POST',
  [BLUESKY_ROUTES.finishUpload]: 'POST',
};

const POST_COLLECTION = 'app.bsky.feed.post';
const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** app.bsky.embed.images#image `image.maxSize` (the lexicons also check the size the record states). */
const MAX_IMAGE_BYTES = 2_000_000;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A CIDv1 (sha2-256) string: codec 0x55 raw for blobs, 0x71 dag-cbor for records. */
function cidOf(bytes: Buffer, codec: 0x55 | 0x71): string {
  const digest = createHash('sha256').update(bytes).digest();
  return `b${base32(Buffer.concat([Buffer.from([0x01, codec, 0x12, 0x20]), digest]))}`;
}

function xrpcError(status: number, error: string, message: string, headers?: Record<string, string>): FakeReply {
  return { status, body: { error, message }, headers };
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A local PDS + AppView speaking the XRPC methods the adapter uses with realistic shapes:
 * createSession, refreshSession, getProfile, resolveHandle, uploadBlob, createRecord (rejects a taken
 * rkey like the PDS does), getRecord, getPosts, getServiceAuth; and the video service: uploadVideo
 * (with a service token for com.atproto.repo.uploadBlob) and getJobStatus, processing over several
 * polls until the job completes with a video blob (app.bsky.embed.video). Tokens are JWT-shaped opaque strings.
 */
export class BlueskyFake extends FakeHttpServer {
  /** Created posts, oldest first. */
  readonly posts: FakeBlueskyPost[] = [];
  /** Uploaded blobs, oldest first. */
  readonly blobs: FakeBlueskyBlob[] = [];
  private readonly accounts: FakeBlueskyAccount[] = [];
  private readonly accountByKey = new Map<string, FakeBlueskyAccount>();
  private readonly handles = new Map<string, string>();
  private readonly tokens = new Map<string, SessionToken>();
  private readonly blobByCid = new Map<string, FakeBlueskyBlob>();
  private readonly postByUri = new Map<string, FakeBlueskyPost>();
  private readonly opts: BlueskyFakeOptions;
  private readonly postCountByDid = new Map<string, number>();
  private tokenCounter = 0;
  private tidCounter = 0;
  /** Videos the video service received (uploadVideo) and their jobs' processing. */
  readonly videos: FakeVideoProcessing;
  private readonly serviceTokens = new Map<string, { did: string; lxm: string; aud: string }>();
  private readonly jobOwner = new Map<string, string>();
  private readonly uploads = new Map<
    string,
    { did: string; size: number; partSize: number; partCount: number; mimeType: string; parts: Map<number, Buffer> }
  >();
  /** Videos received through the multipart upload (finishUpload). */
  multipartUploads = 0;

  constructor(options: BlueskyFakeOptions = {}) {
    super(options);
    // Every call is checked against the lexicons; the XRPC server answers a call they refuse with
    // 400 InvalidRequest (the XRPC specification's error for a malformed request).
    this.checkAgainst(blueskyDescription(), {
      refuse: (problems) => xrpcError(400, 'InvalidRequest', problems.join('; ')),
    });
    this.opts = options;
    this.videos = new FakeVideoProcessing({ maxDurationSeconds: 180, ...options.video });
    for (const spec of options.accounts ?? [{ identifier: 'alice.test', password: 'app-pass', handle: 'alice.test' }]) {
      this.addAccount(spec);
    }
    for (const [handle, did] of Object.entries(options.knownHandles ?? {})) this.handles.set(handle.toLowerCase(), did);
  }

  addAccount(spec: BlueskyFakeAccountOptions): FakeBlueskyAccount {
    const handle = (spec.handle ?? spec.identifier).toLowerCase();
    const did = spec.did ?? `did:plc:${base32(createHash('sha256').update(handle).digest()).slice(0, 24)}`;
    const account: FakeBlueskyAccount = {
      identifier: spec.identifier,
      password: spec.password,
      handle,
      did,
      displayName: spec.displayName ?? '',
      avatar: spec.avatar ?? null,
      passwordRevoked: false,
    };
    this.accounts.push(account);
    for (const key of [spec.identifier.toLowerCase(), handle, did]) this.accountByKey.set(key, account);
    this.handles.set(handle, did);
    return account;
  }

  account(identifierOrDid: string): FakeBlueskyAccount | undefined {
    return this.accountByKey.get(identifierOrDid.toLowerCase());
  }

  /** Makes resolveHandle know `handle`. */
  addHandle(handle: string, did: string): void {
    this.handles.set(handle.toLowerCase(), did);
  }

  /** Every access token issued so far now answers 400 {"error":"ExpiredToken"} (refresh tokens still work). */
  expireAccessTokens(): void {
    for (const token of this.tokens.values()) if (token.kind === 'access') token.expired = true;
  }

  /** One access or refresh token stops working (access: 401 AuthenticationRequired; refresh: 400 ExpiredToken). */
  revokeToken(token: string): void {
    const entry = this.tokens.get(token);
    if (entry) entry.revoked = true;
  }

  /** Revokes the app password of an account: its sessions die and createSession fails with 401. */
  revokeAccount(identifierOrDid: string): void {
    const account = this.account(identifierOrDid);
    if (!account) throw new Error(`No account ${identifierOrDid}`);
    account.passwordRevoked = true;
    for (const token of this.tokens.values()) if (token.did === account.did) token.revoked = true;
  }

  revokeAll(): void {
    for (const account of this.accounts) this.revokeAccount(account.did);
  }

  /** Restores a revoked app password (new sessions work again). */
  restoreAccount(identifierOrDid: string): void {
    const account = this.account(identifierOrDid);
    if (account) account.passwordRevoked = false;
  }

  /** Sets engagement counts of a post (by at:// URI). */
  setCounts(uri: string, counts: Partial<FakeCounts>): void {
    const post = this.postByUri.get(uri);
    if (!post) throw new Error(`No post ${uri}`);
    Object.assign(post.counts, counts);
  }

  getPost(uri: string): FakeBlueskyPost | undefined {
    return this.postByUri.get(uri);
  }

  protected routeOf(_method: string, path: string): string | undefined {
    return path.startsWith('/xrpc/') ? path.slice('/xrpc/'.length) : undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    switch (status) {
      case 400:
        return xrpcError(400, 'InvalidRequest', 'Injected by the fake');
      case 401:
        return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
      case 429: {
        const reset = String(Math.ceil(Date.now() / 1000) + 60);
        return xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
          'ratelimit-limit': '3000',
          'ratelimit-remaining': '0',
          'ratelimit-reset': reset,
          'ratelimit-policy': '3000;w=300',
        });
      }
      case 502:
        return xrpcError(502, 'UpstreamFailure', 'Upstream Failure');
      case 503:
        return xrpcError(503, 'NotEnoughResources', 'Service Unavailable');
      default:
        return status >= 500
          ? xrpcError(status, 'InternalServerError', 'Internal Server Error')
          : xrpcError(status, 'InvalidRequest', `HTTP ${status}`);
    }
  }

  protected handle(req: FakeRequest): Promise<FakeReply> | FakeReply {
    const expected = METHODS[req.route];
    if (!expected) return xrpcError(501, 'MethodNotImplemented', 'Method Not Implemented');
    if (expected !== req.method) return xrpcError(400, 'InvalidRequest', `Incorrect HTTP method (${req.method})`);
    switch (req.route) {
      case BLUESKY_ROUTES.createSession:
        return this.createSession(req);
      case BLUESKY_ROUTES.refreshSession:
        return this.refreshSession(req);
      case BLUESKY_ROUTES.resolveHandle:
        return this.resolveHandle(req);
      case BLUESKY_ROUTES.getRecord:
        return this.getRecord(req);
      case BLUESKY_ROUTES.uploadVideo:
        return this.uploadVideo(req);
      case BLUESKY_ROUTES.startUpload:
      case BLUESKY_ROUTES.uploadPart:
      case BLUESKY_ROUTES.finishUpload:
        return this.multipart(req);
      case BLUESKY_ROUTES.getJobStatus:
        return this.videos.beforeStatus().then(() => this.getJobStatus(req));
    }
    const auth = this.authenticate(req);
    if ('status' in auth) return auth;
    switch (req.route) {
      case BLUESKY_ROUTES.getProfile:
        return this.getProfile(req);
      case BLUESKY_ROUTES.uploadBlob:
        return this.uploadBlob(req, auth.account);
      case BLUESKY_ROUTES.createRecord:
        return this.createRecord(req, auth.account);
      case BLUESKY_ROUTES.getServiceAuth: {
        const aud = req.url.searchParams.get('aud') ?? '';
        const lxm = req.url.searchParams.get('lxm') ?? '';
        if (!aud.startsWith('did:')) return xrpcError(400, 'InvalidRequest', 'aud must be a DID');
        const token = `svc.${b64url({ iss: auth.account.did, aud, lxm })}.${++this.tokenCounter}`;
        this.serviceTokens.set(token, { did: auth.account.did, lxm, aud });
        return { status: 200, body: { token } };
      }
      default:
        return this.getPosts(req);
    }
  }

  private bearer(req: FakeRequest): string | undefined {
    return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  }

  /** Checks the access token like the PDS auth verifier. */
  private authenticate(req: FakeRequest): { account: FakeBlueskyAccount } | FakeReply {
    const token = this.bearer(req);
    if (!token) return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
    const entry = this.tokens.get(token);
    if (!entry) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    if (entry.kind !== 'access') return xrpcError(400, 'InvalidToken', 'Bad token scope');
    if (entry.revoked) return xrpcError(401, 'AuthenticationRequired', 'Token has been revoked');
    if (entry.expired) return xrpcError(400, 'ExpiredToken', 'Token has expired');
    const account = this.account(entry.did);
    if (!account) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    return { account };
  }

  private json(req: FakeRequest): Record<string, unknown> | undefined {
    try {
      return asRecord(JSON.parse(req.body.toString('utf8')));
    } catch {
      return undefined;
    }
  }

  private issueToken(did: string, kind: 'access' | 'refresh'): string {
    const now = Math.floor(Date.now() / 1000);
    this.tokenCounter += 1;
    const token = [
      b64url({ typ: kind === 'access' ? 'at+jwt' : 'refresh+jwt', alg: 'ES256K' }),
      b64url({
        scope: kind === 'access' ? 'com.atproto.appPass' : 'com.atproto.refresh',
        sub: did,
        aud: 'did:web:fake.pds.invalid',
        iat: now,
        exp: now + (kind === 'access' ? 7_200 : 7_776_000),
        jti: `${this.tokenCounter}`,
      }),
      randomBytes(24).toString('base64url'),
    ].join('.');
    this.tokens.set(token, { did, kind, expired: false, revoked: false });
    return token;
  }

  private sessionJson(account: FakeBlueskyAccount, withDidDoc: boolean): Record<string, unknown> {
    const json: Record<string, unknown> = {
      did: account.did,
      handle: account.handle,
      accessJwt: this.issueToken(account.did, 'access'),
      refreshJwt: this.issueToken(account.did, 'refresh'),
      active: true,
    };
    if (withDidDoc) {
      json.email = account.identifier.includes('@') ? account.identifier : `${account.handle}@example.invalid`;
      json.emailConfirmed = true;
      json.didDoc = {
        '@context': ['https://www.w3.org/ns/did/v1'],
        id: account.did,
        alsoKnownAs: [`at://${account.handle}`],
        service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: this.baseUrl }],
      };
    }
    return json;
  }

  private createSession(req: FakeRequest): FakeReply {
    const body = this.json(req);
    const identifier = typeof body?.identifier === 'string' ? body.identifier : undefined;
    const password = typeof body?.password === 'string' ? body.password : undefined;
    if (!identifier || !password)
      return xrpcError(400, 'InvalidRequest', 'Input must have the properties "identifier", "password"');
    const account = this.account(identifier.replace(/^@/, ''));
    if (!account || account.passwordRevoked || account.password !== password) {
      return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
    }
    return { status: 200, body: this.sessionJson(account, true) };
  }

  private refreshSession(req: FakeRequest): FakeReply {
    const token = this.bearer(req);
    if (!token) return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
    const entry = this.tokens.get(token);
    if (!entry) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    if (entry.kind !== 'refresh') return xrpcError(400, 'InvalidToken', 'Invalid token type');
    if (entry.revoked) return xrpcError(400, 'ExpiredToken', 'Token has been revoked');
    const account = this.account(entry.did);
    if (!account) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    entry.revoked = true; // refresh tokens rotate
    return { status: 200, body: this.sessionJson(account, false) };
  }

  private resolveHandle(req: FakeRequest): FakeReply {
    const handle = (req.url.searchParams.get('handle') ?? '').toLowerCase();
    const did = this.handles.get(handle);
    return did ? { status: 200, body: { did } } : xrpcError(400, 'InvalidRequest', 'Unable to resolve handle');
  }

  private profileJson(account: FakeBlueskyAccount): Record<string, unknown> {
    const json: Record<string, unknown> = {
      did: account.did,
      handle: account.handle,
      description: '',
      followersCount: 0,
      followsCount: 0,
      postsCount: this.postCountByDid.get(account.did) ?? 0,
      indexedAt: '2024-01-01T00:00:00.000Z',
      createdAt: '2024-01-01T00:00:00.000Z',
      associated: { lists: 0, feedgens: 0, starterPacks: 0, labeler: false },
      labels: [],
    };
    if (account.displayName) json.displayName = account.displayName;
    if (account.avatar) json.avatar = account.avatar;
    return json;
  }

  private getProfile(req: FakeRequest): FakeReply {
    const actor = req.url.searchParams.get('actor') ?? '';
    const account = this.account(actor);
    return account
      ? { status: 200, body: this.profileJson(account) }
      : xrpcError(400, 'InvalidRequest', 'Profile not found');
  }

  private uploadBlob(req: FakeRequest, account: FakeBlueskyAccount): FakeReply {
    const mimeType = String(req.headers['content-type'] ?? '*/*')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (req.body.length > (this.opts.maxBlobBytes ?? 5_000_000)) {
      return xrpcError(413, 'PayloadTooLarge', 'request entity too large');
    }
    const cid = cidOf(req.body, 0x55);
    const blob: FakeBlueskyBlob = {
      cid,
      did: account.did,
      mimeType,
      size: req.body.length,
      bytes: Buffer.from(req.body),
    };
    if (!this.blobByCid.has(cid)) {
      this.blobs.push(blob);
      this.blobByCid.set(cid, blob);
    }
    return { status: 200, body: { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: blob.size } } };
  }

  /**
   * app.bsky.video.uploadVideo: a service token for com.atproto.repo.uploadBlob (it names the account; the
   * lexicon declares no parameters), the
   * video's bytes; a job (409 already_exists when these very bytes were sent before).
   */
  private uploadVideo(req: FakeRequest): FakeReply {
    const service = this.serviceTokens.get(this.bearer(req) ?? '');
    if (!service) return xrpcError(401, 'AuthenticationRequired', 'A service token is required');
    if (service.lxm !== 'com.atproto.repo.uploadBlob') return xrpcError(401, 'BadJwtLexiconMethod', 'Bad lxm');
    if (req.body.length > BLUESKY_FAKE_MAX_VIDEO_BYTES) {
      return xrpcError(413, 'PayloadTooLarge', `Video too large (at most ${BLUESKY_FAKE_MAX_VIDEO_BYTES} bytes)`);
    }
    const mimeType = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    return this.receiveVideo(Buffer.from(req.body), mimeType, service.did);
  }

  /** A video the service has whole: a job (409 already_exists when these very bytes came before). */
  private receiveVideo(bytes: Buffer, mimeType: string, did: string): FakeReply {
    const jobId = `job-${cidOf(bytes, 0x55).slice(-16)}`;
    if (this.videos.find(jobId)) {
      return { status: 409, body: { error: 'already_exists', message: 'Video already processed', jobId } };
    }
    this.videos.receive(bytes, mimeType, jobId);
    this.jobOwner.set(jobId, did);
    return { status: 200, body: { jobStatus: { jobId, did, state: 'JOB_STATE_CREATED' } } };
  }

  /**
   * The multipart upload (app.bsky.video.startUpload, uploadPart, finishUpload): the declared size is
   * exact, each part's length must be the one its number implies, and finishing needs every part.
   */
  private multipart(req: FakeRequest): FakeReply {
    const service = this.serviceTokens.get(this.bearer(req) ?? '');
    if (!service) return xrpcError(401, 'AuthenticationRequired', 'A service token is required');
    const body = req.route === BLUESKY_ROUTES.uploadPart ? undefined : this.json(req);
    if (req.route === BLUESKY_ROUTES.startUpload) {
      const size = Number(body?.sizeBytes);
      if (size > BLUESKY_FAKE_MAX_VIDEO_BYTES) return xrpcError(400, 'VideoTooLarge', 'The video is too large');
      const partSize = BLUESKY_FAKE_PART_BYTES.value;
      const jobId = `upload-${++this.tokenCounter}`;
      const partCount = Math.ceil(size / partSize);
      this.uploads.set(jobId, {
        did: service.did,
        size,
        partSize,
        partCount,
        mimeType: String(body?.mimeType),
        parts: new Map(),
      });
      return {
        status: 200,
        body: { jobId, partSizeBytes: partSize, partCount, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      };
    }
    const jobId = String(req.route === BLUESKY_ROUTES.uploadPart ? req.url.searchParams.get('jobId') : body?.jobId);
    const upload = this.uploads.get(jobId);
    if (!upload || upload.did !== service.did) return xrpcError(404, 'UploadNotFound', 'Upload not found');
    if (req.route === BLUESKY_ROUTES.uploadPart) {
      const n = Number(req.url.searchParams.get('partNumber'));
      if (!(n >= 1 && n <= upload.partCount)) return xrpcError(400, 'InvalidPartNumber', `No part ${n}`);
      const expected = n < upload.partCount ? upload.partSize : upload.size - upload.partSize * (upload.partCount - 1);
      if (req.body.length !== expected) {
        return xrpcError(400, 'PartSizeMismatch', `Part ${n} must be ${expected} bytes, not ${req.body.length}`);
      }
      upload.parts.set(n, Buffer.from(req.body));
      return { status: 200, body: { partNumber: n, sizeBytes: req.body.length } };
    }
    const missing = Array.from({ length: upload.partCount }, (_, i) => i + 1).filter((n) => !upload.parts.has(n));
    if (missing.length > 0) return xrpcError(400, 'MissingParts', `Missing parts: ${missing.join(', ')}`);
    const whole = Buffer.concat([...upload.parts.entries()].sort(([a], [b]) => a - b).map(([, b]) => b));
    this.multipartUploads += 1;
    const received = this.receiveVideo(whole, upload.mimeType, service.did);
    const status = (received.body as { jobStatus?: { jobId: string }; jobId?: string }) ?? {};
    const completedJobId = status.jobStatus?.jobId ?? status.jobId ?? '';
    return {
      status: 200,
      body: {
        completedJobId,
        jobStatus: status.jobStatus ?? { jobId: completedJobId, did: service.did, state: 'JOB_STATE_CREATED' },
      },
    };
  }

  /** app.bsky.video.getJobStatus: encoding over several polls, then completed with a blob (or failed). */
  private getJobStatus(req: FakeRequest): FakeReply {
    const jobId = req.url.searchParams.get('jobId') ?? '';
    const found = this.videos.find(jobId);
    const did = this.jobOwner.get(jobId);
    if (!found || !did) return xrpcError(404, 'NotFound', 'Job not found');
    const video = this.videos.poll(found);
    const jobStatus: Record<string, unknown> = { jobId, did, state: 'JOB_STATE_ENCODING', progress: 50 };
    if (video.state === 'failed') {
      Object.assign(jobStatus, { state: 'JOB_STATE_FAILED', error: 'processing_failed', message: video.error });
      delete jobStatus.progress;
    }
    if (video.state === 'ready') {
      // The service hands the processed video to the PDS as a blob of the account.
      const bytes = video.bytes;
      const cid = cidOf(bytes, 0x55);
      if (!this.blobByCid.has(cid)) {
        const blob: FakeBlueskyBlob = { cid, did, mimeType: 'video/mp4', size: bytes.length, bytes };
        this.blobs.push(blob);
        this.blobByCid.set(cid, blob);
      }
      Object.assign(jobStatus, {
        state: 'JOB_STATE_COMPLETED',
        progress: 100,
        blob: { $type: 'blob', ref: { $link: cid }, mimeType: 'video/mp4', size: bytes.length },
      });
    }
    return { status: 200, body: { jobStatus } };
  }

  /** Lexicon-ish validation of an app.bsky.feed.post record; returns the error message. */
  private invalidPost(record: Record<string, unknown>, did: string): string | undefined {
    const prefix = 'Invalid app.bsky.feed.post record:';
    if (record.$type !== POST_COLLECTION) return `${prefix} Record/$type must be app.bsky.feed.post`;
    if (typeof record.text !== 'string') return `${prefix} Record must have the property "text"`;
    if ([...segmenter.segment(record.text)].length > 300) {
      return `${prefix} Record/text must not be longer than 300 graphemes`;
    }
    const textBytes = Buffer.byteLength(record.text);
    if (textBytes > 3000) return `${prefix} Record/text must not be longer than 3000 characters`;
    if (typeof record.createdAt !== 'string' || Number.isNaN(Date.parse(record.createdAt))) {
      return `${prefix} Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)`;
    }
    if (record.facets !== undefined) {
      if (!Array.isArray(record.facets)) return `${prefix} Record/facets must be an array`;
      for (const [i, facet] of record.facets.entries()) {
        const index = asRecord(asRecord(facet)?.index);
        const start = index?.byteStart;
        const end = index?.byteEnd;
        if (typeof start !== 'number' || typeof end !== 'number' || start < 0 || end < start || end > textBytes) {
          return `${prefix} Record/facets/${i}/index is out of range`;
        }
      }
    }
    if (record.reply !== undefined) {
      const reply = asRecord(record.reply);
      for (const side of ['root', 'parent'] as const) {
        const ref = asRecord(reply?.[side]);
        if (typeof ref?.uri !== 'string' || !ref.uri.startsWith('at://') || typeof ref.cid !== 'string') {
          return `${prefix} Record/reply/${side} must be a com.atproto.repo.strongRef (uri and cid)`;
        }
      }
    }
    const embed = asRecord(record.embed);
    if (embed?.$type === 'app.bsky.embed.video') {
      const link = asRecord(asRecord(embed.video)?.ref)?.$link;
      const blob = typeof link === 'string' ? this.blobByCid.get(link) : undefined;
      if (!blob || blob.did !== did) return `Could not find blob: ${String(link)}`;
      if (!blob.mimeType.startsWith('video/')) return `${prefix} Record/embed/video mimeType not accepted`;
      if (embed.alt !== undefined && typeof embed.alt !== 'string')
        return `${prefix} Record/embed/alt must be a string`;
      const ratio = asRecord(embed.aspectRatio);
      if (
        embed.aspectRatio !== undefined &&
        !(
          Number.isInteger(ratio?.width) &&
          Number.isInteger(ratio?.height) &&
          Number(ratio?.width) > 0 &&
          Number(ratio?.height) > 0
        )
      ) {
        return `${prefix} Record/embed/aspectRatio must have positive integers width and height`;
      }
    } else if (embed) {
      if (embed.$type !== 'app.bsky.embed.images' || !Array.isArray(embed.images)) {
        return `${prefix} Record/embed is not a supported embed`;
      }
      if (embed.images.length > 4) return `${prefix} Record/embed/images must not have more than 4 elements`;
      for (const [i, item] of embed.images.entries()) {
        const image = asRecord(asRecord(item)?.image);
        const link = asRecord(image?.ref)?.$link;
        const blob = typeof link === 'string' ? this.blobByCid.get(link) : undefined;
        if (!blob || blob.did !== did) return `Could not find blob: ${String(link)}`;
        if (typeof asRecord(item)?.alt !== 'string')
          return `${prefix} Record/embed/images/${i} must have the property "alt"`;
        if (!blob.mimeType.startsWith('image/'))
          return `${prefix} Record/embed/images/${i}/image mimeType not accepted`;
        if (blob.size > MAX_IMAGE_BYTES) {
          return `${prefix} Record/embed/images/${i}/image file too large (${blob.size} bytes, max ${MAX_IMAGE_BYTES})`;
        }
      }
    }
    return undefined;
  }

  private async createRecord(req: FakeRequest, account: FakeBlueskyAccount): Promise<FakeReply> {
    const body = this.json(req);
    if (!body) return xrpcError(400, 'InvalidRequest', 'Request body must be JSON');
    const repo = typeof body.repo === 'string' ? body.repo.toLowerCase() : '';
    if (this.account(repo)?.did !== account.did)
      return xrpcError(401, 'AuthenticationRequired', 'Authentication Required');
    if (body.collection !== POST_COLLECTION) {
      return xrpcError(400, 'InvalidRequest', `The fake only stores ${POST_COLLECTION} records`);
    }
    const record = asRecord(body.record);
    if (!record) return xrpcError(400, 'InvalidRequest', 'Input must have the property "record"');
    const rkey = typeof body.rkey === 'string' ? body.rkey : this.nextTid();
    if (!TID_RE.test(rkey)) return xrpcError(400, 'InvalidRequest', `Invalid record key: ${rkey}`);
    const invalid = this.invalidPost(record, account.did);
    if (invalid) return xrpcError(400, 'InvalidRequest', invalid);

    const uri = `at://${account.did}/${POST_COLLECTION}/${rkey}`;
    if (this.postByUri.has(uri)) {
      return this.opts.duplicateRkey === 'invalid-request'
        ? xrpcError(400, 'InvalidRequest', `Record already exists: ${uri}`)
        : xrpcError(500, 'InternalServerError', 'Internal Server Error');
    }
    const cid = cidOf(Buffer.from(JSON.stringify(record)), 0x71);
    const post: FakeBlueskyPost = {
      uri,
      cid,
      did: account.did,
      rkey,
      record,
      indexedAt: new Date().toISOString(),
      counts: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
    };
    this.posts.push(post);
    this.postByUri.set(uri, post);
    this.postCountByDid.set(account.did, (this.postCountByDid.get(account.did) ?? 0) + 1);
    await this.waitIfHeld();
    return {
      status: 200,
      body: {
        uri,
        cid,
        commit: { cid: cidOf(Buffer.from(uri), 0x71), rev: this.nextTid() },
        validationStatus: 'valid',
      },
    };
  }

  private getRecord(req: FakeRequest): FakeReply {
    const params = req.url.searchParams;
    const account = this.account(params.get('repo') ?? '');
    const uri = `at://${account?.did ?? params.get('repo')}/${params.get('collection')}/${params.get('rkey')}`;
    const post = this.postByUri.get(uri);
    if (!post) return xrpcError(400, 'RecordNotFound', `Could not locate record: ${uri}`);
    return { status: 200, body: { uri: post.uri, cid: post.cid, value: post.record } };
  }

  private postView(post: FakeBlueskyPost): Record<string, unknown> {
    const account = this.account(post.did);
    const view: Record<string, unknown> = {
      uri: post.uri,
      cid: post.cid,
      author: {
        did: post.did,
        handle: account?.handle ?? 'handle.invalid',
        ...(account?.displayName ? { displayName: account.displayName } : {}),
        ...(account?.avatar ? { avatar: account.avatar } : {}),
        labels: [],
        createdAt: '2024-01-01T00:00:00.000Z',
      },
      record: post.record,
      replyCount: post.counts.replies,
      repostCount: post.counts.reposts,
      likeCount: post.counts.likes,
      quoteCount: post.counts.quotes ?? 0,
      indexedAt: post.indexedAt,
      labels: [],
    };
    const images = asRecord(post.record.embed)?.images;
    if (Array.isArray(images)) {
      view.embed = {
        $type: 'app.bsky.embed.images#view',
        images: images.map((item) => {
          const link = String(asRecord(asRecord(asRecord(item)?.image)?.ref)?.$link);
          return {
            thumb: `${this.baseUrl}/img/feed_thumbnail/plain/${post.did}/${link}@jpeg`,
            fullsize: `${this.baseUrl}/img/feed_fullsize/plain/${post.did}/${link}@jpeg`,
            alt: asRecord(item)?.alt ?? '',
          };
        }),
      };
    }
    return view;
  }

  private getPosts(req: FakeRequest): FakeReply {
    const uris = req.url.searchParams.getAll('uris');
    if (uris.length === 0) return xrpcError(400, 'InvalidRequest', 'Error: Params must have the property "uris"');
    if (uris.length > 25) return xrpcError(400, 'InvalidRequest', 'Error: uris must not have more than 25 elements');
    const posts = uris.flatMap((uri) => {
      const post = this.postByUri.get(uri);
      return post ? [this.postView(post)] : [];
    });
    return { status: 200, body: { posts } };
  }

  private nextTid(): string {
    const alphabet = '234567abcdefghijklmnopqrstuvwxyz';
    let value = (BigInt(Date.now()) * 1000n + BigInt(this.tidCounter++ % 1000)) * 1024n;
    let out = '';
    for (let i = 0; i < 13; i += 1) {
      out = alphabet[Number(value % 32n)] + out;
      value /= 32n;
    }
    return out;
  }
}

/** BlueskyFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new BlueskyFake({ accounts: [{ identifier: 'contract.test', password: 'contract-pass' }] });
  return {
    start: async () => ({ identifier: 'contract.test', appPassword: 'contract-pass', serviceUrl: await fake.start() }),
    // The video service is served by the same fake.
    appEnv: () => ({ BLUESKY_VIDEO_SERVICE_URL: fake.baseUrl }),
    stop: () => fake.stop(),
    wrongCredentials: () => ({ identifier: 'contract.test', appPassword: 'wrong-pass', serviceUrl: fake.baseUrl }),
    publishRoute: BLUESKY_ROUTES.createRecord,
    rejectStatus: 400,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/xrpc/${BLUESKY_ROUTES.createRecord}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'did:plc:contract',
        collection: 'app.bsky.feed.post',
        record: { $type: 'app.bsky.feed.post', txt: 'renamed', createdAt: new Date().toISOString() },
      }),
      renamed: { from: 'text', to: 'txt' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.posts.map((p) => {
        const embed = p.record.embed as { $type?: string; images?: Array<{ alt?: string }>; alt?: string } | undefined;
        if (embed?.$type === 'app.bsky.embed.video') {
          const reply = p.record.reply as { parent?: { uri?: string } } | undefined;
          return {
            platformPostId: p.uri,
            text: String(p.record.text),
            mediaCount: 1,
            mediaAltTexts: [embed.alt || null],
            inReplyTo: reply?.parent?.uri ?? null,
          };
        }
        const reply = p.record.reply as { parent?: { uri?: string } } | undefined;
        return {
          platformPostId: p.uri,
          text: String(p.record.text),
          mediaCount: embed?.images?.length ?? 0,
          // Bluesky's alt is required; an empty one means none.
          mediaAltTexts: (embed?.images ?? []).map((i) => i.alt || null),
          inReplyTo: reply?.parent?.uri ?? null,
        };
      }),
    setCounts: (id, counts) => fake.setCounts(id, counts),
  };
}
