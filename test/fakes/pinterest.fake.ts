import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { pinterestDescription } from './descriptions/networks';

/**
 * A local Pinterest (API v5): the OAuth consent page (consents at once and redirects with `code` and
 * `state`), the token endpoint (client credentials in HTTP Basic; code exchange and refresh, which
 * keeps the refresh token), user_account, boards (paged with `bookmark`), a board's pins, pin
 * creation with `media_source` `image_base64` (JPEG or PNG, checked against `content_type`) or
 * `image_url` (downloaded, as Pinterest does) or `video_id` (a processed upload of the media API,
 * with a cover), with the board section (which must be the board's), title, link and dominant color
 * checked as Pinterest does, and pin analytics (90 days back at most). Scopes are
 * enforced; errors use Pinterest's `{code, message}` bodies.
 */
export const PINTEREST_ROUTES = {
  authorize: 'GET /oauth/',
  token: 'POST /v5/oauth/token',
  userAccount: 'GET /v5/user_account',
  boards: 'GET /v5/boards',
  boardPins: 'GET /v5/boards/:id/pins',
  createPin: 'POST /v5/pins',
  pinAnalytics: 'GET /v5/pins/:id/analytics',
  registerMedia: 'POST /v5/media',
  mediaStatus: 'GET /v5/media/:id',
  mediaUpload: 'POST /media-upload/',
} as const;

export const ALL_PINTEREST_SCOPES = ['user_accounts:read', 'boards:read', 'pins:read', 'pins:write'];

export interface PinterestFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds (Pinterest: 30 days). */
  accessTokenTtlSeconds?: number;
  /** Boards of the account (default: one public board). */
  boards?: FakePinterestBoard[];
  /** Retry-After (seconds) of injected 429 answers. Default 1. */
  rateLimitResetSeconds?: number;
  /** Status reads of an uploaded video answered `processing` before `succeeded`. Default 1. */
  processingPolls?: number;
}

/** A video registered with the media API. */
export interface FakePinterestMedia {
  id: string;
  key: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  bytes: number;
  pollsLeft: number;
}

export interface FakePinterestBoard {
  id: string;
  name: string;
  privacy?: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  /** Ids of the board's sections (none by default). */
  sections?: string[];
}

export interface FakePin {
  id: string;
  boardId: string;
  description: string;
  altText: string | null;
  title: string | null;
  link: string | null;
  boardSectionId: string | null;
  dominantColor: string | null;
  /** The video's cover: the key frame time asked, or the cover image URL. */
  cover: { keyFrameTime: number } | { url: string } | null;
  /** What the image bytes are, by their signature ('video' for a video pin). */
  imageType: string;
  /** The media id of a video pin. */
  videoMediaId?: string;
  imageBytes: number;
  createdAt: string;
  counts: FakeCounts & { impressions: number; clicks: number };
}

const error = (status: number, code: number, message: string): FakeReply => ({ status, body: { code, message } });
const UNAUTHORIZED = error(401, 2, 'Authentication failed.');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const sniff = (bytes: Buffer) =>
  bytes.subarray(0, 8).equals(PNG)
    ? 'image/png'
    : bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
      ? 'image/jpeg'
      : 'unknown';
const today = () => new Date().toISOString().slice(0, 10);

interface Token {
  scopes: string[];
  expiresAt: number;
}

export class PinterestFake extends FakeHttpServer {
  readonly username = 'contract_pinner';
  readonly boards: FakePinterestBoard[];
  readonly pins: FakePin[] = [];
  /** Authorization requests received (query parameters), oldest first. */
  readonly authorizations: Array<Record<string, string>> = [];
  refreshCount = 0;
  readonly clientId: string;
  readonly clientSecret: string;
  private readonly accessTokens = new Map<string, Token>();
  private readonly refreshTokens = new Map<string, string[]>();
  private readonly grants = new Map<string, { redirectUri: string; scopes: string[]; used: boolean }>();
  private nextId = 1_090_000_000_000_000_000n;
  private failAfterCreate: number[] = [];
  readonly media = new Map<string, FakePinterestMedia>();
  /** The next uploaded video fails processing. */
  failNextVideo = false;
  /** Status reads of an uploaded video answered `processing` before it is done. */
  videoProcessingPolls: number;

  constructor(private readonly opts: PinterestFakeOptions = {}) {
    super(opts);
    this.clientId = opts.clientId ?? 'pinterest-client-id';
    this.clientSecret = opts.clientSecret ?? 'pinterest-client-secret';
    this.videoProcessingPolls = opts.processingPolls ?? 1;
    this.boards = opts.boards ?? [{ id: '549755885175', name: 'Contract board' }];
    // Every API call against Pinterest's v5 OpenAPI document; refused as Pinterest refuses a malformed
    // request (400, code 1). The consent page (www.pinterest.com/oauth/) and the upload URL (Pinterest's
    // S3 bucket, authorized by the signed fields) are not part of the API the document describes.
    this.checkAgainst(pinterestDescription(), {
      refuse: (problems) => error(400, 1, `Invalid parameters: ${problems.join('; ')}`),
      unchecked: (req) => req.route === PINTEREST_ROUTES.authorize || req.route === PINTEREST_ROUTES.mediaUpload,
    });
  }

  appEnv(): Record<string, string> {
    return {
      PINTEREST_CLIENT_ID: this.clientId,
      PINTEREST_CLIENT_SECRET: this.clientSecret,
      PINTEREST_AUTH_BASE_URL: this.baseUrl,
      PINTEREST_API_BASE_URL: this.baseUrl,
    };
  }

  issueToken(scopes: string[] = ALL_PINTEREST_SCOPES): string {
    const token = `pina_${randomBytes(16).toString('hex')}`;
    const ttl = this.opts.accessTokenTtlSeconds ?? 2_592_000;
    this.accessTokens.set(token, { scopes, expiresAt: Date.now() + ttl * 1000 });
    return token;
  }

  /** The user consenting: Pinterest redirects at once to `redirect_uri` with `code` and `state`. */
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

  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = Date.now() - 1000;
  }

  /** The board is deleted on Pinterest (pins to it are refused). */
  deleteBoard(id: string): void {
    const index = this.boards.findIndex((b) => b.id === id);
    if (index >= 0) this.boards.splice(index, 1);
  }

  /** The next pin is created, then answered with `status` (the outcome is unknown to the client). */
  failAfterCreateNext(status = 503): void {
    this.failAfterCreate.push(status);
  }

  setCounts(id: string, counts: Partial<FakeCounts & { impressions: number; clicks: number }>): void {
    const pin = this.pins.find((p) => p.id === id);
    if (!pin) throw new Error(`No pin ${id}`);
    Object.assign(pin.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/oauth/') return PINTEREST_ROUTES.authorize;
    if (method === 'POST' && path === '/v5/oauth/token') return PINTEREST_ROUTES.token;
    if (method === 'GET' && path === '/v5/user_account') return PINTEREST_ROUTES.userAccount;
    if (method === 'GET' && path === '/v5/boards') return PINTEREST_ROUTES.boards;
    if (method === 'GET' && /^\/v5\/boards\/[^/]+\/pins$/.test(path)) return PINTEREST_ROUTES.boardPins;
    if (method === 'POST' && path === '/v5/pins') return PINTEREST_ROUTES.createPin;
    if (method === 'GET' && /^\/v5\/pins\/[^/]+\/analytics$/.test(path)) return PINTEREST_ROUTES.pinAnalytics;
    if (method === 'POST' && path === '/v5/media') return PINTEREST_ROUTES.registerMedia;
    if (method === 'GET' && /^\/v5\/media\/[^/]+$/.test(path)) return PINTEREST_ROUTES.mediaStatus;
    if (method === 'POST' && path === '/media-upload/') return PINTEREST_ROUTES.mediaUpload;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHORIZED;
    if (status === 429) {
      return {
        ...error(429, 8, 'You have exceeded your rate limit. Try again later.'),
        headers: {
          'retry-after': String(this.opts.rateLimitResetSeconds ?? 1),
          'x-ratelimit-limit': '1000',
          'x-ratelimit-remaining': '0',
        },
      };
    }
    if (status === 400) return error(400, 1, 'Invalid parameters.');
    if (status === 403)
      return error(403, 3, 'Sorry, you cannot save this Pin because it violates our community guidelines.');
    return error(status, 500, 'Something went wrong on our end. Sorry about that.');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === PINTEREST_ROUTES.authorize) return this.authorize(req);
    if (req.route === PINTEREST_ROUTES.token) return this.token(req);
    if (req.route === PINTEREST_ROUTES.mediaUpload) return this.upload(req);
    const token = this.authenticate(req);
    if (!token) return UNAUTHORIZED;
    const q = req.url.searchParams;
    const scope = (s: string) => (token.scopes.includes(s) ? null : error(401, 2, `Missing scope: ${s}`));
    switch (req.route) {
      case PINTEREST_ROUTES.userAccount:
        return (
          scope('user_accounts:read') ?? {
            status: 200,
            body: {
              account_type: 'BUSINESS',
              username: this.username,
              business_name: 'Contract Pins',
              profile_image: `${this.baseUrl}/avatars/${this.username}.jpg`,
              website_url: 'https://example.com',
            },
          }
        );
      case PINTEREST_ROUTES.boards: {
        const denied = scope('boards:read');
        if (denied) return denied;
        const size = Math.min(Number(q.get('page_size') ?? 25) || 25, 250);
        const start = Number(q.get('bookmark') ?? 0) || 0;
        const items = this.boards.slice(start, start + size).map((b) => ({
          id: b.id,
          name: b.name,
          description: '',
          owner: { username: this.username },
          privacy: b.privacy ?? 'PUBLIC',
          pin_count: this.pins.filter((p) => p.boardId === b.id).length,
        }));
        const next = start + size < this.boards.length ? String(start + size) : null;
        return { status: 200, body: { items, bookmark: next } };
      }
      case PINTEREST_ROUTES.boardPins: {
        const denied = scope('pins:read') ?? scope('boards:read');
        if (denied) return denied;
        const boardId = req.path.split('/')[3];
        if (!this.boards.some((b) => b.id === boardId)) return error(404, 40, 'Board not found.');
        const size = Math.min(Number(q.get('page_size') ?? 25) || 25, 250);
        const items = this.pins
          .filter((p) => p.boardId === boardId)
          .reverse()
          .slice(0, size)
          .map((p) => this.pinBody(p));
        return { status: 200, body: { items, bookmark: null } };
      }
      case PINTEREST_ROUTES.createPin:
        return scope('pins:write') ?? (await this.createPin(req));
      case PINTEREST_ROUTES.pinAnalytics:
        return scope('pins:read') ?? this.analytics(req);
      case PINTEREST_ROUTES.registerMedia: {
        const denied = scope('pins:write');
        if (denied) return denied;
        let body: { media_type?: unknown };
        try {
          body = JSON.parse(req.body.toString()) as typeof body;
        } catch {
          return error(400, 1, 'Invalid JSON.');
        }
        if (body.media_type !== 'video') return error(400, 1, 'Invalid parameters: media_type must be video.');
        const id = String(this.nextId++);
        const key = `uploads/${randomBytes(6).toString('hex')}/${id}.mp4`;
        this.media.set(id, { id, key, status: 'registered', bytes: 0, pollsLeft: this.videoProcessingPolls });
        return {
          status: 201,
          body: {
            media_id: id,
            media_type: 'video',
            upload_url: `${this.baseUrl}/media-upload/`,
            upload_parameters: {
              'x-amz-date': '20261127T000000Z',
              'x-amz-signature': createHash('sha256').update(key).digest('hex'),
              'x-amz-security-token': 'fake-token',
              'x-amz-algorithm': 'AWS4-HMAC-SHA256',
              key,
              policy: Buffer.from('{}').toString('base64'),
              'x-amz-credential': 'fake/20261127/us-east-1/s3/aws4_request',
              'Content-Type': 'multipart/form-data',
            },
          },
        };
      }
      case PINTEREST_ROUTES.mediaStatus: {
        const media = this.media.get(req.path.split('/')[3]);
        if (!media) return error(404, 404, 'Media not found.');
        if (media.status === 'processing') {
          if (media.pollsLeft > 0) media.pollsLeft--;
          else media.status = this.failNextVideo ? 'failed' : 'succeeded';
          if (media.status === 'failed') this.failNextVideo = false;
        }
        return { status: 200, body: { media_id: media.id, media_type: 'video', status: media.status } };
      }
      default:
        return error(404, 404, `No route ${req.method} ${req.path}`);
    }
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId || q.response_type !== 'code' || !q.redirect_uri || !q.scope) {
      return { status: 400, raw: Buffer.from('Invalid authorization request') };
    }
    const target = new URL(q.redirect_uri);
    if (q.state) target.searchParams.set('state', q.state);
    const code = randomBytes(20).toString('hex');
    this.grants.set(code, { redirectUri: q.redirect_uri, scopes: q.scope.split(','), used: false });
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [];
    if (id !== this.clientId || secret !== this.clientSecret) return error(401, 2, 'Authentication failed.');
    const form = new URLSearchParams(req.body.toString());
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) {
        return error(400, 1, 'Invalid authorization code.');
      }
      grant.used = true;
      const refreshToken = `pinr_${randomBytes(16).toString('hex')}`;
      this.refreshTokens.set(refreshToken, grant.scopes);
      return {
        status: 200,
        body: { ...this.accessBody(grant.scopes), refresh_token: refreshToken, refresh_token_expires_in: 31_536_000 },
      };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const scopes = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!scopes) return error(400, 1, 'Invalid refresh token.');
      this.refreshCount++;
      // Pinterest keeps the refresh token (no rotation): the answer carries none.
      return { status: 200, body: this.accessBody(scopes) };
    }
    return error(400, 1, 'Unsupported grant_type.');
  }

  private accessBody(scopes: string[]) {
    return {
      access_token: this.issueToken(scopes),
      token_type: 'bearer',
      expires_in: this.opts.accessTokenTtlSeconds ?? 2_592_000,
      scope: scopes.join(','),
      response_type: 'authorization_code',
    };
  }

  private authenticate(req: FakeRequest): Token | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry : null;
  }

  private async createPin(req: FakeRequest): Promise<FakeReply> {
    let body: {
      board_id?: unknown;
      description?: unknown;
      alt_text?: unknown;
      title?: unknown;
      link?: unknown;
      board_section_id?: unknown;
      dominant_color?: unknown;
      media_source?: {
        source_type?: unknown;
        content_type?: unknown;
        data?: unknown;
        url?: unknown;
        media_id?: unknown;
        cover_image_url?: unknown;
        cover_image_key_frame_time?: unknown;
      };
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return error(400, 1, 'Invalid JSON.');
    }
    if (typeof body.board_id !== 'string' || !this.boards.some((b) => b.id === body.board_id)) {
      return error(404, 40, 'Board not found.');
    }
    const board = this.boards.find((b) => b.id === body.board_id)!;
    if (body.board_section_id !== undefined) {
      if (typeof body.board_section_id !== 'string' || !(board.sections ?? []).includes(body.board_section_id)) {
        return error(404, 4, 'Board section not found.');
      }
    }
    if (typeof body.title === 'string' && [...body.title].length > 100) {
      return error(400, 1, 'Invalid parameters: title is longer than 100.');
    }
    if (
      body.link !== undefined &&
      (typeof body.link !== 'string' || !/^https?:\/\//.test(body.link) || body.link.length > 2048)
    ) {
      return error(400, 1, 'Invalid parameters: link must be a URL of at most 2048 characters.');
    }
    if (
      body.dominant_color !== undefined &&
      (typeof body.dominant_color !== 'string' || !/^#[0-9a-f]{6}$/i.test(body.dominant_color))
    ) {
      return error(400, 1, 'Invalid parameters: dominant_color must be a hex color.');
    }
    const description = typeof body.description === 'string' ? body.description : '';
    if ([...description].length > 800) return error(400, 1, 'Invalid parameters: description is longer than 800.');
    if (typeof body.alt_text === 'string' && [...body.alt_text].length > 500) {
      return error(400, 1, 'Invalid parameters: alt_text is longer than 500.');
    }
    let bytes: Buffer;
    const source = body.media_source ?? {};
    let videoMediaId: string | undefined;
    let cover: FakePin['cover'] = null;
    if (source.source_type === 'video_id') {
      const media = this.media.get(typeof source.media_id === 'string' ? source.media_id : '');
      if (!media) return error(400, 1, 'Invalid parameters: unknown media_id.');
      if (media.status !== 'succeeded') return error(400, 1, 'Invalid parameters: the video is not processed yet.');
      if (typeof source.cover_image_url !== 'string' && typeof source.cover_image_key_frame_time !== 'number') {
        return error(400, 1, 'Invalid parameters: a cover image is required for a video Pin.');
      }
      videoMediaId = media.id;
      cover =
        typeof source.cover_image_url === 'string'
          ? { url: source.cover_image_url }
          : { keyFrameTime: source.cover_image_key_frame_time as number };
      bytes = Buffer.alloc(media.bytes);
    } else if (source.source_type === 'image_base64') {
      if (source.content_type !== 'image/jpeg' && source.content_type !== 'image/png') {
        return error(400, 1, 'Invalid parameters: content_type must be image/jpeg or image/png.');
      }
      bytes = Buffer.from(typeof source.data === 'string' ? source.data : '', 'base64');
      if (sniff(bytes) !== source.content_type)
        return error(400, 1, 'Invalid image: the data is not an image of content_type.');
    } else if (source.source_type === 'image_url' && typeof source.url === 'string') {
      const res = await fetch(source.url).catch(() => null);
      if (!res?.ok) return error(400, 1, 'Invalid image: the image_url could not be downloaded.');
      bytes = Buffer.from(await res.arrayBuffer());
      if (sniff(bytes) === 'unknown') return error(400, 1, 'Invalid image.');
    } else {
      return error(400, 1, 'Invalid parameters: media_source is required.');
    }
    const pin: FakePin = {
      id: String(this.nextId++),
      boardId: body.board_id,
      description,
      altText: typeof body.alt_text === 'string' ? body.alt_text : null,
      title: typeof body.title === 'string' ? body.title : null,
      link: typeof body.link === 'string' ? body.link : null,
      boardSectionId: typeof body.board_section_id === 'string' ? body.board_section_id : null,
      dominantColor: typeof body.dominant_color === 'string' ? body.dominant_color : null,
      cover,
      imageType: videoMediaId ? 'video' : sniff(bytes),
      imageBytes: bytes.length,
      ...(videoMediaId ? { videoMediaId } : {}),
      createdAt: new Date().toISOString(),
      counts: { likes: 0, reposts: 0, replies: 0, impressions: 0, clicks: 0 },
    };
    this.pins.push(pin);
    await this.waitIfHeld();
    const failStatus = this.failAfterCreate.shift();
    if (failStatus !== undefined) return this.injectedFailure(failStatus);
    return { status: 201, body: this.pinBody(pin) };
  }

  /** The storage upload: a multipart form with the signed fields, then `file`. */
  private upload(req: FakeRequest): FakeReply {
    const boundary = /boundary=([^;]+)/.exec(String(req.headers['content-type'] ?? ''))?.[1];
    if (!boundary) return { status: 400, raw: Buffer.from('<Error><Code>MalformedPOSTRequest</Code></Error>') };
    const parts = req.body.toString('latin1').split(`--${boundary}`);
    const fields = new Map<string, string>();
    let fileBytes = -1;
    for (const part of parts) {
      const name = /name="([^"]+)"/.exec(part)?.[1];
      const split = part.indexOf('\r\n\r\n');
      if (!name || split < 0) continue;
      const value = part.slice(split + 4, part.length - 2);
      if (/filename="/.test(part.slice(0, split))) fileBytes = Buffer.byteLength(value, 'latin1');
      else fields.set(name, value);
    }
    const media = [...this.media.values()].find((m) => m.key === fields.get('key'));
    if (!media || fields.get('x-amz-signature') !== createHash('sha256').update(media.key).digest('hex')) {
      return { status: 403, raw: Buffer.from('<Error><Code>AccessDenied</Code></Error>') };
    }
    if (fileBytes <= 0)
      return { status: 400, raw: Buffer.from('<Error><Code>IncorrectNumberOfFilesInPostRequest</Code></Error>') };
    media.bytes = fileBytes;
    media.status = 'processing';
    return { status: 204 };
  }

  private pinBody(p: FakePin) {
    return {
      id: p.id,
      created_at: p.createdAt,
      board_id: p.boardId,
      board_section_id: p.boardSectionId,
      dominant_color: p.dominantColor,
      board_owner: { username: this.username },
      description: p.description,
      alt_text: p.altText,
      title: p.title,
      link: p.link,
      media: { media_type: p.videoMediaId ? 'video' : 'image' },
    };
  }

  private analytics(req: FakeRequest): FakeReply {
    const pin = this.pins.find((p) => p.id === req.path.split('/')[3]);
    if (!pin) return error(404, 50, 'Pin not found.');
    const q = req.url.searchParams;
    const start = q.get('start_date') ?? '';
    const end = q.get('end_date') ?? '';
    const earliest = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || start < earliest || end > today()) {
      return error(400, 1, 'Invalid parameters: dates must be within the last 90 days.');
    }
    const types = (q.get('metric_types') ?? '').split(',').filter(Boolean);
    if (types.length === 0) return error(400, 1, 'Invalid parameters: metric_types is required.');
    const all: Record<string, number> = {
      IMPRESSION: pin.counts.impressions,
      SAVE: pin.counts.reposts,
      TOTAL_REACTIONS: pin.counts.likes,
      TOTAL_COMMENTS: pin.counts.replies,
      PIN_CLICK: pin.counts.clicks,
      OUTBOUND_CLICK: 0,
    };
    const figures = Object.fromEntries(types.filter((t) => t in all).map((t) => [t, all[t]]));
    return {
      status: 200,
      body: {
        all: {
          daily_metrics: [{ date: today(), data_status: 'READY', metrics: figures }],
          lifetime_metrics: figures,
          summary_metrics: figures,
        },
      },
    };
  }
}

/** PinterestFake for the shared provider contract suite: one board, pins need an image. */
export function contractFake(): ProviderContractFake {
  const fake = new PinterestFake();
  return {
    ...oauthContractFake(fake, {
      publishRoute: PINTEREST_ROUTES.createPin,
      rejectStatus: 400,
      described: describedContract(fake, () => ({
        method: 'POST',
        url: `${fake.baseUrl}/v5/pins`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.issueToken()}` },
        // PinCreate leaves its fields open and optional; the image source's `data` is required.
        body: JSON.stringify({
          board_id: fake.boards[0].id,
          description: 'renamed',
          media_source: { source_type: 'image_base64', content_type: 'image/png', image_data: 'iVBORw0KGgo=' },
        }),
        renamed: { from: 'data', to: 'image_data' },
      })),
      posts: () =>
        fake.pins.map((p) => ({
          platformPostId: p.id,
          text: p.description,
          mediaCount: 1,
          mediaAltTexts: [p.altText],
          inReplyTo: null,
        })),
    }),
    requiresMedia: true,
  };
}
