import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { FakeVideo, FakeVideoOptions, FakeVideoProcessing } from './fake-video-processing';
import { describedContract, type ProviderContractFake } from './provider-contract';
import { mastodonDescription } from './descriptions/networks';

export type { FakeCounts, FakeHold, FakeRequestLogEntry } from './fake-http-server';

export interface MastodonFakeAccountOptions {
  token: string;
  /** Accounts with the same id share statuses and idempotency keys. Default: position + 1. */
  id?: string;
  username?: string;
  displayName?: string;
}

export interface MastodonFakeOptions extends FakeServerOptions {
  /** Valid access tokens (a string is a token of its own account). Default ['test-token']. */
  tokens?: Array<string | MastodonFakeAccountOptions>;
  /** configuration.statuses.max_characters. Default 500. */
  maxCharacters?: number;
  /** configuration.statuses.max_media_attachments. Default 4. */
  maxMediaAttachments?: number;
  /** configuration.media_attachments.image_size_limit. Default 16 MiB. */
  imageSizeLimit?: number;
  supportedMimeTypes?: string[];
  /** 'async' (default): POST /api/v2/media answers 202 with url null; 'sync': 200 with the url. */
  mediaProcessing?: 'sync' | 'async';
  /** In async mode, how many polls of GET /api/v1/media/:id answer 206 before the 200 with url. Default 0. */
  mediaPollsBeforeReady?: number;
  /** configuration.media_attachments.video_size_limit. Default 99 MiB. */
  videoSizeLimit?: number;
  /** Video processing (GET /api/v1/media/:id answers 206 meanwhile): polls before ready, default 2. */
  video?: FakeVideoOptions;
  /** instance `domain`; default the server's host:port. */
  domain?: string;
  /** Seconds until X-RateLimit-Reset on injected 429 answers. Default 60. */
  rateLimitResetSeconds?: number;
}

export interface FakeMastodonAccount {
  id: string;
  username: string;
  displayName: string;
}

export interface FakeMastodonMedia {
  id: string;
  accountId: string;
  mimeType: string;
  filename: string;
  size: number;
  bytes: Buffer;
  /** Polls answered so far. */
  polls: number;
  ready: boolean;
  statusId: string | null;
  /** The alt text (`description` field of the upload), null when none was sent. */
  description: string | null;
  /** A video in processing (images: null). */
  video: FakeVideo | null;
}

export interface FakeMastodonStatus {
  id: string;
  accountId: string;
  text: string;
  visibility: string;
  mediaIds: string[];
  idempotencyKey: string | null;
  /** The status this one replies to (`in_reply_to_id`), null for a top-level status. */
  inReplyToId: string | null;
  createdAt: string;
  counts: FakeCounts;
}

/** Routes (also the `route` values accepted by failNext / setLatency). */
export const MASTODON_ROUTES = {
  verifyCredentials: 'GET /api/v1/accounts/verify_credentials',
  instance: 'GET /api/v2/instance',
  uploadMedia: 'POST /api/v2/media',
  getMedia: 'GET /api/v1/media/:id',
  createStatus: 'POST /api/v1/statuses',
  getStatus: 'GET /api/v1/statuses/:id',
  mediaFile: 'GET /system/media_attachments/files/:id',
} as const;

const INVALID_TOKEN = { error: 'The access token is invalid' };
const DEFAULT_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/heic',
  'image/heif',
  'image/webp',
  'image/avif',
  'video/webm',
  'video/mp4',
  'video/quicktime',
  'audio/wave',
  'audio/wav',
  'audio/mpeg',
  'audio/ogg',
];
const URL_RE = /https?:\/\/[^\s]+/g;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemeLength(text: string): number {
  return [...segmenter.segment(text)].length;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Parses multipart/form-data well enough for uploads (part headers + data by boundary). */
export function parseMultipart(body: Buffer, contentType: string): MultipartPart[] | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const separator = Buffer.from(`\r\n--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) return undefined;
  pos += delimiter.length;
  const parts: MultipartPart[] = [];
  while (body.subarray(pos, pos + 2).toString('latin1') === '\r\n') {
    const headerEnd = body.indexOf('\r\n\r\n', pos + 2);
    if (headerEnd < 0) return undefined;
    const headers = body.subarray(pos + 2, headerEnd).toString('utf8');
    const dataEnd = body.indexOf(separator, headerEnd + 4);
    if (dataEnd < 0) return undefined;
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    parts.push({
      name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? '',
      filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
      contentType: /content-type:\s*([^\r\n;]+)/i.exec(headers)?.[1]?.trim(),
      data: body.subarray(headerEnd + 4, dataEnd),
    });
    pos = dataEnd + separator.length;
  }
  return body.subarray(pos, pos + 2).toString('latin1') === '--' ? parts : undefined;
}

/**
 * A local Mastodon instance speaking the endpoints the adapter uses, with realistic JSON shapes:
 * verify_credentials, v2/instance, v2/media (+ v1/media/:id polling), v1/statuses (POST, GET /:id).
 * `Idempotency-Key` is honoured per account (same key -> same status, no duplicate).
 */
export class MastodonFake extends FakeHttpServer {
  /** Created statuses, oldest first. */
  readonly statuses: FakeMastodonStatus[] = [];
  /** Uploaded media, oldest first. */
  readonly media: FakeMastodonMedia[] = [];
  private readonly accountsByToken = new Map<string, FakeMastodonAccount>();
  private readonly accountsById = new Map<string, FakeMastodonAccount>();
  private readonly revoked = new Set<string>();
  private readonly statusById = new Map<string, FakeMastodonStatus>();
  private readonly mediaById = new Map<string, FakeMastodonMedia>();
  private readonly idempotency = new Map<string, FakeMastodonStatus>();
  private nextStatusId = 110_000_000_000_000_000n;
  private nextMediaId = 111_000_000_000_000_000n;
  private readonly opts: MastodonFakeOptions;
  /** Videos the instance received (POST /api/v2/media) and their processing. */
  readonly videos: FakeVideoProcessing;

  constructor(options: MastodonFakeOptions = {}) {
    super(options);
    this.opts = options;
    this.videos = new FakeVideoProcessing(options.video);
    // Every API call against Mastodon's reference pages as recorded (test/fixtures/networks/mastodon),
    // refused as Mastodon refuses an invalid request: 422 {"error": "Validation failed: ..."}. The
    // media files the instance serves are not API calls.
    this.checkAgainst(mastodonDescription(), {
      refuse: (problems) => ({ status: 422, body: { error: `Validation failed: ${problems.join(', ')}` } }),
      unchecked: (req) => req.route === MASTODON_ROUTES.mediaFile,
    });
    (options.tokens ?? ['test-token']).forEach((entry, index) => {
      const spec = typeof entry === 'string' ? { token: entry } : entry;
      const id = spec.id ?? String(index + 1);
      this.registerToken(spec.token, { id, username: spec.username, displayName: spec.displayName });
    });
  }

  /** Adds a valid token (for its own account unless `account.id` matches an existing one). */
  addToken(token: string, account?: Partial<FakeMastodonAccount>): void {
    this.registerToken(token, { ...account, id: account?.id ?? String(this.accountsById.size + 1) });
    this.revoked.delete(token);
  }

  private registerToken(token: string, spec: { id: string; username?: string; displayName?: string }): void {
    const account = this.accountsById.get(spec.id) ?? {
      id: spec.id,
      username: spec.username ?? `user${spec.id}`,
      displayName: spec.displayName ?? `User ${spec.id}`,
    };
    this.accountsById.set(account.id, account);
    this.accountsByToken.set(token, account);
  }

  /** The token now gets 401 {"error":"The access token is invalid"}. */
  revokeToken(token: string): void {
    this.revoked.add(token);
  }

  revokeAll(): void {
    for (const token of this.accountsByToken.keys()) this.revoked.add(token);
  }

  /** Sets engagement counts of a status (by id). */
  setCounts(statusId: string, counts: Partial<FakeCounts>): void {
    const status = this.statusById.get(statusId);
    if (!status) throw new Error(`No status ${statusId}`);
    Object.assign(status.counts, counts);
  }

  getStatus(statusId: string): FakeMastodonStatus | undefined {
    return this.statusById.get(statusId);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/api/v1/accounts/verify_credentials') return MASTODON_ROUTES.verifyCredentials;
    if (method === 'GET' && path === '/api/v2/instance') return MASTODON_ROUTES.instance;
    if (method === 'POST' && path === '/api/v2/media') return MASTODON_ROUTES.uploadMedia;
    if (method === 'GET' && /^\/api\/v1\/media\/[^/]+$/.test(path)) return MASTODON_ROUTES.getMedia;
    if (method === 'POST' && path === '/api/v1/statuses') return MASTODON_ROUTES.createStatus;
    if (method === 'GET' && /^\/api\/v1\/statuses\/[^/]+$/.test(path)) return MASTODON_ROUTES.getStatus;
    if (method === 'GET' && path.startsWith('/system/media_attachments/files/')) return MASTODON_ROUTES.mediaFile;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return { status, body: INVALID_TOKEN };
    if (status === 429) {
      const reset = new Date(Date.now() + (this.opts.rateLimitResetSeconds ?? 60) * 1000).toISOString();
      return {
        status,
        body: { error: 'Too many requests' },
        headers: { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
      };
    }
    if (status === 422) return { status, body: { error: 'Validation failed: injected by the fake' } };
    if (status === 404) return { status, body: { error: 'Record not found' } };
    if (status >= 500) return { status, body: { error: `We're sorry, but something went wrong (HTTP ${status})` } };
    return { status, body: { error: `HTTP ${status}` } };
  }

  protected handle(req: FakeRequest): Promise<FakeReply> | FakeReply {
    switch (req.route) {
      case MASTODON_ROUTES.instance:
        return { status: 200, body: this.instanceJson() };
      case MASTODON_ROUTES.mediaFile:
        return this.mediaFile(req.path);
      case MASTODON_ROUTES.getStatus:
        // Public statuses can be read without a token, but a token that is sent must be valid.
        if (req.headers.authorization !== undefined && !this.authenticate(req))
          return { status: 401, body: INVALID_TOKEN };
        return this.getStatusReply(req.path);
    }
    const account = this.authenticate(req);
    if (!account) return { status: 401, body: INVALID_TOKEN };
    switch (req.route) {
      case MASTODON_ROUTES.verifyCredentials:
        return { status: 200, body: this.accountJson(account, true) };
      case MASTODON_ROUTES.uploadMedia:
        return this.uploadMedia(req, account);
      case MASTODON_ROUTES.getMedia:
        if (this.mediaById.get(decodeURIComponent(req.path.slice('/api/v1/media/'.length)))?.video) {
          return this.videos.beforeStatus().then(() => this.getMedia(req.path, account));
        }
        return this.getMedia(req.path, account);
      case MASTODON_ROUTES.createStatus:
        return this.createStatus(req, account);
      default:
        return { status: 404, body: { error: 'Not Found' } };
    }
  }

  /** The account of the Bearer token, or undefined when missing, unknown or revoked. */
  private authenticate(req: FakeRequest): FakeMastodonAccount | undefined {
    const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
    if (this.revoked.has(token)) return undefined;
    return this.accountsByToken.get(token);
  }

  private accountJson(account: FakeMastodonAccount, withSource: boolean): Record<string, unknown> {
    const base = this.baseUrl;
    const json: Record<string, unknown> = {
      id: account.id,
      username: account.username,
      acct: account.username,
      display_name: account.displayName,
      locked: false,
      bot: false,
      discoverable: true,
      group: false,
      created_at: '2023-01-01T00:00:00.000Z',
      note: '<p>Fake account</p>',
      url: `${base}/@${account.username}`,
      uri: `${base}/users/${account.username}`,
      avatar: `${base}/system/accounts/avatars/${account.id}/original/avatar.png`,
      avatar_static: `${base}/system/accounts/avatars/${account.id}/original/avatar.png`,
      header: `${base}/headers/original/missing.png`,
      header_static: `${base}/headers/original/missing.png`,
      followers_count: 0,
      following_count: 0,
      statuses_count: this.statuses.length,
      last_status_at: null,
      emojis: [],
      fields: [],
    };
    if (withSource) {
      json.source = { privacy: 'public', sensitive: false, language: null, note: 'Fake account', fields: [] };
    }
    return json;
  }

  private instanceJson(): Record<string, unknown> {
    const domain = this.opts.domain ?? new URL(this.baseUrl).host;
    return {
      domain,
      title: 'Fake Mastodon',
      version: '4.3.0',
      source_url: 'https://github.com/mastodon/mastodon',
      description: 'A local fake of a Mastodon instance',
      usage: { users: { active_month: this.accountsById.size } },
      thumbnail: { url: `${this.baseUrl}/packs/media/images/preview.png` },
      languages: ['en'],
      configuration: {
        urls: { streaming: this.baseUrl.replace(/^http/, 'ws') },
        accounts: { max_featured_tags: 10 },
        statuses: {
          max_characters: this.opts.maxCharacters ?? 500,
          max_media_attachments: this.opts.maxMediaAttachments ?? 4,
          characters_reserved_per_url: 23,
        },
        media_attachments: {
          supported_mime_types: this.opts.supportedMimeTypes ?? DEFAULT_MIME_TYPES,
          image_size_limit: this.opts.imageSizeLimit ?? 16 * 1024 * 1024,
          image_matrix_limit: 33_177_600,
          video_size_limit: this.opts.videoSizeLimit ?? 99 * 1024 * 1024,
          video_frame_rate_limit: 120,
          video_matrix_limit: 8_294_400,
        },
        polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
        translation: { enabled: false },
      },
      registrations: { enabled: false, approval_required: false, message: null },
      contact: { email: 'admin@example.invalid', account: null },
      rules: [],
    };
  }

  private mediaUrl(media: FakeMastodonMedia): string {
    return `${this.baseUrl}/system/media_attachments/files/${media.id}/original/${encodeURIComponent(media.filename)}`;
  }

  private mediaJson(media: FakeMastodonMedia): Record<string, unknown> {
    const type = media.mimeType === 'image/gif' ? 'gifv' : (media.mimeType.split('/')[0] ?? 'unknown');
    return {
      id: media.id,
      type: ['image', 'gifv', 'video', 'audio'].includes(type) ? type : 'unknown',
      url: media.ready ? this.mediaUrl(media) : null,
      preview_url: media.ready ? this.mediaUrl(media) : null,
      remote_url: null,
      preview_remote_url: null,
      text_url: null,
      meta: { original: { size: media.size } },
      description: media.description,
      blurhash: null,
    };
  }

  private uploadMedia(req: FakeRequest, account: FakeMastodonAccount): FakeReply {
    const parts = parseMultipart(req.body, String(req.headers['content-type'] ?? ''));
    const file = parts?.find((p) => p.name === 'file' && p.filename !== undefined);
    if (!file) return { status: 422, body: { error: "Validation failed: File can't be blank" } };
    const mimeType = (file.contentType ?? 'application/octet-stream').toLowerCase();
    const accepted = this.opts.supportedMimeTypes ?? DEFAULT_MIME_TYPES;
    if (!accepted.includes(mimeType)) {
      return { status: 422, body: { error: 'Validation failed: File content type is invalid, File is invalid' } };
    }
    const limit = this.opts.imageSizeLimit ?? 16 * 1024 * 1024;
    if (mimeType.startsWith('image/') && file.data.length > limit) {
      return {
        status: 422,
        body: { error: `Validation failed: File file size must be less than ${Math.floor(limit / (1024 * 1024))} MB` },
      };
    }
    const videoLimit = this.opts.videoSizeLimit ?? 99 * 1024 * 1024;
    if (mimeType.startsWith('video/') && file.data.length > videoLimit) {
      return {
        status: 422,
        body: {
          error: `Validation failed: File file size must be less than ${Math.floor(videoLimit / (1024 * 1024))} MB`,
        },
      };
    }
    const isVideo = mimeType.startsWith('video/');
    const sync = this.opts.mediaProcessing === 'sync' && !isVideo;
    const media: FakeMastodonMedia = {
      id: String(this.nextMediaId++),
      accountId: account.id,
      mimeType,
      filename: file.filename || 'file',
      size: file.data.length,
      bytes: Buffer.from(file.data),
      polls: 0,
      ready: sync,
      statusId: null,
      description: null,
      video: null,
    };
    if (isVideo) media.video = this.videos.receive(Buffer.from(file.data), mimeType, media.id);
    const description = parts?.find((p) => p.name === 'description' && p.filename === undefined);
    if (description) {
      const text = description.data.toString('utf8');
      if ([...text].length > 1500) {
        return {
          status: 422,
          body: { error: 'Validation failed: Description is too long (maximum is 1500 characters)' },
        };
      }
      media.description = text;
    }
    this.media.push(media);
    this.mediaById.set(media.id, media);
    return { status: sync ? 200 : 202, body: this.mediaJson(media) };
  }

  private getMedia(path: string, account: FakeMastodonAccount): FakeReply {
    const media = this.mediaById.get(decodeURIComponent(path.slice('/api/v1/media/'.length)));
    if (!media || media.accountId !== account.id) return { status: 404, body: { error: 'Record not found' } };
    if (media.video) {
      const video = this.videos.poll(media.video);
      if (video.state === 'failed')
        return { status: 422, body: { error: `Error processing thumbnail for uploaded media: ${video.error}` } };
      media.ready = video.state === 'ready';
      return { status: media.ready ? 200 : 206, body: this.mediaJson(media) };
    }
    if (!media.ready) {
      media.polls += 1;
      if (media.polls > (this.opts.mediaPollsBeforeReady ?? 0)) media.ready = true;
    }
    return { status: media.ready ? 200 : 206, body: this.mediaJson(media) };
  }

  private mediaFile(path: string): FakeReply {
    const id = path.split('/')[4] ?? '';
    const media = this.mediaById.get(id);
    if (!media || !media.ready) return { status: 404, body: { error: 'Record not found' } };
    return { status: 200, raw: media.bytes, headers: { 'content-type': media.mimeType } };
  }

  private parseStatusParams(
    req: FakeRequest,
  ): { text: string; mediaIds: string[]; visibility: string; inReplyToId: string | null } | undefined {
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) {
      let data: unknown;
      try {
        data = JSON.parse(req.body.toString('utf8'));
      } catch {
        return undefined;
      }
      if (typeof data !== 'object' || data === null) return undefined;
      const obj = data as Record<string, unknown>;
      const mediaIds = Array.isArray(obj.media_ids) ? obj.media_ids.map((v) => String(v)) : [];
      const inReplyTo = obj.in_reply_to_id;
      return {
        text: typeof obj.status === 'string' ? obj.status : '',
        mediaIds,
        visibility: typeof obj.visibility === 'string' ? obj.visibility : 'public',
        inReplyToId: typeof inReplyTo === 'string' || typeof inReplyTo === 'number' ? String(inReplyTo) : null,
      };
    }
    const form = new URLSearchParams(req.body.toString('utf8'));
    return {
      text: form.get('status') ?? '',
      mediaIds: form.getAll('media_ids[]'),
      visibility: form.get('visibility') ?? 'public',
      inReplyToId: form.get('in_reply_to_id') || null,
    };
  }

  private async createStatus(req: FakeRequest, account: FakeMastodonAccount): Promise<FakeReply> {
    const keyHeader = req.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' && keyHeader !== '' ? keyHeader : null;
    const idemKey = key === null ? null : `${account.id}|${key}`;
    const existing = idemKey === null ? undefined : this.idempotency.get(idemKey);
    if (existing) {
      await this.waitIfHeld();
      return { status: 200, body: this.statusJson(existing) };
    }

    const params = this.parseStatusParams(req);
    if (!params) return { status: 422, body: { error: 'Validation failed: malformed request body' } };
    const invalid = this.validateStatus(params, account);
    if (invalid) return { status: 422, body: { error: invalid } };
    if (params.inReplyToId !== null && !this.statusById.has(params.inReplyToId)) {
      return { status: 404, body: { error: 'The status you are trying to reply to does not appear to exist.' } };
    }

    const status: FakeMastodonStatus = {
      id: String(this.nextStatusId++),
      accountId: account.id,
      text: params.text,
      visibility: params.visibility,
      mediaIds: params.mediaIds,
      idempotencyKey: key,
      inReplyToId: params.inReplyToId,
      createdAt: new Date().toISOString(),
      counts: { likes: 0, reposts: 0, replies: 0 },
    };
    for (const id of params.mediaIds) {
      const media = this.mediaById.get(id);
      if (media) media.statusId = status.id;
    }
    this.statuses.push(status);
    this.statusById.set(status.id, status);
    if (idemKey !== null) this.idempotency.set(idemKey, status);
    await this.waitIfHeld();
    return { status: 200, body: this.statusJson(status) };
  }

  private validateStatus(
    params: { text: string; mediaIds: string[]; visibility: string },
    account: FakeMastodonAccount,
  ): string | undefined {
    if (params.text.trim() === '' && params.mediaIds.length === 0) return "Validation failed: Text can't be blank";
    const max = this.opts.maxCharacters ?? 500;
    if (graphemeLength(params.text.replace(URL_RE, 'x'.repeat(23))) > max) {
      return `Validation failed: Text character limit of ${max} exceeded`;
    }
    if (!['public', 'unlisted', 'private', 'direct'].includes(params.visibility)) {
      return 'Validation failed: Visibility is not included in the list';
    }
    if (params.mediaIds.length > (this.opts.maxMediaAttachments ?? 4)) {
      return `Cannot attach more than ${this.opts.maxMediaAttachments ?? 4} files`;
    }
    const missing = params.mediaIds.filter((id) => {
      const media = this.mediaById.get(id);
      return !media || media.accountId !== account.id || media.statusId !== null;
    });
    if (missing.length > 0) return `Media with ID(s) ${missing.join(', ')} could not be found`;
    if (params.mediaIds.some((id) => !this.mediaById.get(id)?.ready)) {
      return 'Cannot attach files that have not finished processing. Try again in a moment!';
    }
    return undefined;
  }

  private getStatusReply(path: string): FakeReply {
    const status = this.statusById.get(decodeURIComponent(path.slice('/api/v1/statuses/'.length)));
    if (!status) return { status: 404, body: { error: 'Record not found' } };
    return { status: 200, body: this.statusJson(status) };
  }

  private statusJson(status: FakeMastodonStatus): Record<string, unknown> {
    const account = this.accountsById.get(status.accountId);
    const base = this.baseUrl;
    const username = account?.username ?? 'unknown';
    const json: Record<string, unknown> = {
      id: status.id,
      created_at: status.createdAt,
      in_reply_to_id: status.inReplyToId,
      in_reply_to_account_id: status.inReplyToId ? (this.statusById.get(status.inReplyToId)?.accountId ?? null) : null,
      sensitive: false,
      spoiler_text: '',
      visibility: status.visibility,
      language: 'en',
      uri: `${base}/users/${username}/statuses/${status.id}`,
      url: `${base}/@${username}/${status.id}`,
      replies_count: status.counts.replies,
      reblogs_count: status.counts.reposts,
      favourites_count: status.counts.likes,
      edited_at: null,
      favourited: false,
      reblogged: false,
      muted: false,
      bookmarked: false,
      pinned: false,
      content: `<p>${escapeHtml(status.text)}</p>`,
      reblog: null,
      application: { name: 'Social Publishing Service', website: null },
      account: account ? this.accountJson(account, false) : null,
      media_attachments: status.mediaIds.flatMap((id) => {
        const media = this.mediaById.get(id);
        return media ? [this.mediaJson(media)] : [];
      }),
      mentions: [],
      tags: [],
      emojis: [],
      card: null,
      poll: null,
    };
    if (status.counts.quotes !== undefined) json.quotes_count = status.counts.quotes;
    return json;
  }
}

/** MastodonFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new MastodonFake({ tokens: ['contract-token'], mediaProcessing: 'async', mediaPollsBeforeReady: 1 });
  return {
    start: async () => ({ instanceUrl: await fake.start(), accessToken: 'contract-token' }),
    stop: () => fake.stop(),
    wrongCredentials: () => ({ instanceUrl: fake.baseUrl, accessToken: 'wrong-token' }),
    publishRoute: MASTODON_ROUTES.createStatus,
    rejectStatus: 422,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/api/v1/statuses`,
      headers: { 'content-type': 'application/json', authorization: 'Bearer contract-token' },
      body: JSON.stringify({ text: 'renamed', media_ids: [], visibility: 'public' }),
      renamed: { from: 'status', to: 'text' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.statuses.map((s) => ({
        platformPostId: s.id,
        text: s.text,
        mediaCount: s.mediaIds.length,
        mediaAltTexts: s.mediaIds.map((id) => fake.media.find((m) => m.id === id)?.description ?? null),
        inReplyTo: s.inReplyToId,
      })),
    setCounts: (id, counts) => fake.setCounts(id, counts),
  };
}
