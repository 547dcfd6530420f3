import { Readable } from 'node:stream';

/** Limits of one connected account, read from the provider where it exposes them. */
export interface ChannelLimits {
  /** Maximum post length, counted as the provider counts it (Mastodon: characters, Bluesky: graphemes). */
  maxCharacters: number;
  /** Maximum number of media attachments per post. */
  maxMedia: number;
  /** Largest image the provider accepts, in bytes. */
  maxImageBytes: number;
  /** MIME types the provider accepts as attachments. */
  supportedMimeTypes: string[];
  /** Whether a post may carry a thread: follow-up parts published as a chain of replies. */
  threads: boolean;
  /**
   * What the account takes as video, or null when it takes none (or this service cannot publish video
   * to it yet). Absent in limits stored before video arrived: read as null.
   */
  video?: VideoLimits | null;
  /**
   * Whether a post may carry a first comment: a comment (or reply) published on the post once it is
   * live, checked against the same text limit as the post (docs/adr/0035).
   */
  firstComment: boolean;
}

/**
 * A network's video limits, as it documents them. The five first fields always; the others only where
 * the network enforces them (absent: no limit). Sizes are as displayed (rotation applied).
 */
export interface VideoLimits {
  /** Largest video file, in bytes. */
  maxBytes: number;
  minDurationSeconds: number;
  maxDurationSeconds: number;
  /** Container types taken (`video/mp4`, `video/quicktime`, `video/webm`). */
  mimeTypes: string[];
  /** Most videos in one post. */
  maxPerPost: number;
  /** Width over height, e.g. 0.5625 for 9:16 and 1.7778 for 16:9. */
  minAspectRatio?: number;
  maxAspectRatio?: number;
  minFrameRate?: number;
  maxFrameRate?: number;
  /** Longest side in pixels (either orientation). */
  maxLongSide?: number;
  /** Shortest side in pixels (either orientation). */
  minShortSide?: number;
  maxShortSide?: number;
  /** Pixels of one frame, width x height (Mastodon's `video_matrix_limit`). */
  maxPixels?: number;
  /** Bits per second of the whole file. */
  maxBitrate?: number;
  /** Video codecs taken, as ffmpeg names them (`h264`, `hevc`, ...); absent: any. */
  videoCodecs?: string[];
  /** Audio codecs taken (`aac`, ...); absent: any. A silent video is always fine. */
  audioCodecs?: string[];
  /** Whether images and videos may share a post; default true. */
  mixWithImages?: boolean;
}

/**
 * A network's own settings for one target (`targets[i].options`), already validated against the
 * plugin's `optionsSchema`; `{}` when none were given (and always for a plugin without options).
 */
export type ProviderOptions = Record<string, unknown>;

/**
 * What a connected account is on its network: `personal`, the account of the person who connected
 * it; `organization`, a page they administer and publish as (LinkedIn organization, Facebook Page).
 */
export type AccountKind = 'personal' | 'organization';

/** What `connect` learns about the account. */
export interface ConnectedAccount {
  /** Stable id of the account on the provider (Mastodon account id + instance host, Bluesky DID). */
  externalId: string;
  /** `personal` when absent. */
  kind?: AccountKind;
  name: string;
  handle: string;
  avatarUrl: string | null;
  profileUrl: string | null;
  limits: ChannelLimits;
  /** Normalized credentials to store (encrypted) for later calls; may include session tokens. */
  credentials: Record<string, unknown>;
}

/** A media item attached to a post, as the adapter sees it. */
export interface MediaDescriptor {
  id: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  filename: string;
  /** Text alternative for screen readers, when known (validation checks its length where a network limits it). */
  altText?: string | null;
  /** A video's duration in milliseconds (probed at upload); null or absent for images. */
  durationMs?: number | null;
  /** A video's frames per second, when known. */
  frameRate?: number | null;
  /** A video's codecs and bitrate as probed (`h264`, `aac`, bits/s). */
  videoCodec?: string | null;
  audioCodec?: string | null;
  bitrate?: number | null;
}

export interface PublishMedia extends MediaDescriptor {
  /** Opens the bytes as a fresh stream (may be called again on retry). */
  open(): Readable;
  /** Text alternative for screen readers; null when none was given. */
  altText: string | null;
  /** A fresh signed public URL of the bytes (`{PUBLIC_BASE_URL}/api/media/{id}/content?...`), valid MEDIA_URL_TTL_SECONDS; for networks that fetch media themselves. */
  publicUrl(): Promise<string>;
  /**
   * A public URL of the bytes that does not expire (`{PUBLIC_BASE_URL}/api/media/{id}/content?expires=permanent&...`),
   * the same at every call, for networks whose posts link the media for good (Nostr notes); it works
   * as long as the item is kept (docs/adr/0056).
   */
  permanentUrl?(): Promise<string>;
  /**
   * The video as the network takes it: itself, or a copy converted once in a background job (H.264/AAC
   * MP4, index first, within the caps) and kept with the item. Throws ProcessingPendingError while the
   * copy is being made (the publisher polls again later, holding no worker) and MediaRejectedError
   * when no conversion makes it acceptable (or conversions are off), naming the limit.
   */
  asVideo?(requirements: VideoRequirementsForPublish): Promise<PublishMedia>;
  /** A video's poster frame (JPEG, the `poster` variant) as a fresh signed public URL; absent for images. */
  posterUrl?(): Promise<string>;
  /** The same image converted to `mimeType` (e.g. 'image/jpeg' for Instagram), converted once and cached with the item; itself when already that type. Throws ProviderError('MEDIA_REJECTED', ...) when it cannot be converted. */
  as(mimeType: string): Promise<PublishMedia>;
}

/**
 * What a network's publisher requires of a video file: its video limits, plus what a conversion can
 * give (codecs, index first for progressive download). Absent fields: no requirement.
 */
export interface VideoRequirementsForPublish extends Partial<VideoLimits> {
  /** The network's name in messages. */
  label?: string;
  /** MP4/MOV must have the index (moov) first. */
  faststart?: boolean;
  pixelFormats?: string[];
}

/** The content of a post to validate against one channel. */
export interface PostDraft {
  content: string;
  media: MediaDescriptor[];
  /**
   * The target's `options` (`{}` when none), already checked against the plugin's schema where they
   * were given: `validate` adds what a schema cannot say (sums, dates, rules across fields), naming
   * fields `options.<field>`.
   */
  options?: ProviderOptions;
}

/** One validation problem; `field` is `content` or `mediaIds`. */
export interface Problem {
  field: string;
  message: string;
}

/** A post of the thread being published, as an earlier part's publish returned it. */
export interface ThreadPost extends PublishedRef {
  /** The `replyRef` its publish returned (Bluesky: the record's CID); null when none. */
  replyRef: Record<string, string> | null;
}

/** Where a thread part goes: the thread's first post and the part it answers. */
export interface ReplyTo {
  root: ThreadPost;
  parent: ThreadPost;
}

export interface PublishInput<O extends object = ProviderOptions> {
  credentials: Record<string, unknown>;
  content: string;
  media: PublishMedia[];
  /**
   * The target's `options`, validated against the plugin's `optionsSchema` before they were stored:
   * an adapter types them with the type its schema is declared for (`JSONSchemaType<O>`). The same
   * on every part of a thread. Absent or `{}` when the target has none.
   */
  options?: Partial<O>;
  /**
   * Stable for one publication of one target, the same on every retry.
   * Mastodon: sent as `Idempotency-Key`. Bluesky: derives the record key.
   */
  idempotencyKey: string;
  /**
   * 1 for the first try of this publication; more means an earlier try may have reached the network
   * with an unknown outcome (networks without an idempotency key look for the post before posting).
   */
  attempt?: number;
  /** When the publication was first due; Bluesky uses it for the record's createdAt and TID. */
  createdAt: Date;
  /**
   * Set for the parts of a thread after the first: publish this post as a reply to `parent`, in the
   * thread that starts at `root`. Only given to networks whose limits say `threads: true`.
   */
  replyTo?: ReplyTo;
  /**
   * What this publish saved with `saveCheckpoint` on an earlier attempt of the same publication (and
   * thread part); null on the first attempt or when nothing was saved. Networks that publish in two
   * steps keep the created container here and, on a retry, reuse it rather than post twice.
   */
  checkpoint: Record<string, unknown> | null;
  /**
   * Stores `state` (small JSON) for the next attempt of this part, in the database, before it
   * resolves: call it before a request whose outcome could be lost (docs/adr/0023).
   */
  saveCheckpoint(state: Record<string, unknown>): Promise<void>;
}

/** A first comment to publish on a post that is live (docs/adr/0035). */
export interface CommentInput {
  credentials: Record<string, unknown>;
  /** The comment's text, checked against the channel's limits like a post. */
  content: string;
  /** The post to comment on, as its publish returned it (of a thread, its first part). */
  post: ThreadPost;
  /**
   * Stable for one comment of one publication of one target (`<target>:<publication>:first-comment`),
   * the same on every retry: a comment whose outcome was unknown is found again, not posted twice.
   */
  idempotencyKey: string;
  /** 1 for the first try; more means an earlier try may have reached the network. */
  attempt: number;
  /** When the post was first due: stable across retries (Bluesky's createdAt and record key). */
  createdAt: Date;
}

/** Reference to a published post on the provider. */
export interface PublishedRef {
  platformPostId: string;
  url: string;
}

export interface PublishResult extends PublishedRef {
  /** Set when the adapter refreshed session tokens that the caller should store. */
  credentials?: Record<string, unknown>;
  /**
   * What the network needs besides the id to reply to this post (Bluesky: the record's CID). Kept
   * with the thread part and handed back in `replyTo` when the next part is published.
   */
  replyRef?: Record<string, string>;
}

export interface Metrics {
  likes: number | null;
  reposts: number | null;
  replies: number | null;
  quotes: number | null;
  impressions: number | null;
  /** The provider's own figures as received. */
  raw: Record<string, unknown>;
}

export interface MetricsResult {
  metrics: Metrics;
  credentials?: Record<string, unknown>;
}

/** A social network's adapter, built by its plugin (provider-plugin.ts). Adapters never touch the database. */
export interface SocialProvider {
  /** The plugin's id. */
  readonly id: string;
  /** Verifies the credentials with the provider and returns the profile and limits. Throws InvalidCredentialsError. */
  connect(credentials: unknown): Promise<ConnectedAccount>;
  /**
   * OAuth networks where one authorization publishes as several accounts (LinkedIn: the member and
   * the organization pages they administer). Every account the tokens reach, the authorizing one
   * first, each with its own credentials to store. When there is more than one, the oauth module
   * lets the caller choose which become channels (docs/adr/0018). Without it: `connect` alone.
   */
  connectTargets?(credentials: unknown): Promise<ConnectedAccount[]>;
  /** Pure: checks a draft against the channel's limits. */
  validate(post: PostDraft, limits: ChannelLimits): Problem[];
  /**
   * Pure, optional: a text's length as `validate` counts it against `maxCharacters` (X weighs URLs,
   * Bluesky counts graphemes). The console's composer shows it per network as one types; without it,
   * code points.
   */
  countCharacters?(text: string): number;
  /**
   * Pure, optional: what the user should know about a draft that is still valid (X: a link makes the
   * post cost more). `POST /api/posts/validate` lists them as `warnings`; they never refuse a post.
   */
  warnings?(post: PostDraft, limits: ChannelLimits): Problem[];
  /** Publishes; must be idempotent per `input.idempotencyKey`. */
  publish(input: PublishInput): Promise<PublishResult>;
  /**
   * Optional: publishes a first comment on a live post, idempotent per `input.idempotencyKey`. Without
   * it, a network whose limits take threads gets the comment as a reply (`publish` with `replyTo` the
   * post itself); a network that takes neither has `limits.firstComment` false.
   */
  comment?(input: CommentInput): Promise<PublishResult>;
  fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult>;
  /**
   * Optional: revokes the stored credentials at the network (the network forgets the authorization), for
   * networks that offer it (`withRevocation` in the plugin's `create`). Called when a channel is
   * disconnected (unless a connected channel shares the grant) and when a workspace is erased
   * (docs/adr/0052), best effort: `signal` aborts it when its time is up, and a failure never stops the
   * disconnect or the erasure. Throws when the network refuses; the caller logs the message, which
   * must never carry the token. The contract suite checks it against the network's fake.
   */
  revokeAccess?(credentials: Record<string, unknown>, signal: AbortSignal): Promise<void>;
}

/** The hosts an OAuth network is reached at: the plugin's defaults or the configured overrides. */
export interface OAuthHosts {
  /** Consent page host (X: https://x.com, LinkedIn: https://www.linkedin.com). */
  auth: string;
  /** API host (X: https://api.x.com, LinkedIn: https://api.linkedin.com). */
  api: string;
  /** Token endpoint host, for networks that answer it on a third host (Instagram: https://api.instagram.com). */
  token?: string;
  /** The plugin's settings values, for what belongs in its URLs (Facebook: the Graph API version). */
  settings?: Readonly<Record<string, unknown>>;
}

/** Tokens from a network's token endpoint. */
export interface OAuthTokens {
  accessToken: string;
  /** Null when the network issued none (then the channel must be reconnected at expiry, or the plugin refreshes the access token itself). */
  refreshToken: string | null;
  /** ISO date the access token expires; null when the network did not say (or it does not expire). */
  expiresAt: string | null;
  scope: string | null;
}

/**
 * A token request a plugin's hook asks the oauth module to send (long-lived token exchange, a
 * refresh that is not RFC 6749's). GET sends `fields` in the query, POST as a form body. The answer
 * is read as a token set, and refusals and outages are classified like the standard endpoint's.
 */
export interface OAuthTokenCall {
  method: 'GET' | 'POST';
  url: string;
  fields: Record<string, string>;
}

/** What an OAuth hook gets: this server's app registration and a way to call token endpoints. */
export interface OAuthHookContext {
  hosts: OAuthHosts;
  clientId: string;
  clientSecret: string;
  /** Our callback URL registered with the network. */
  callbackUrl: string;
  token(call: OAuthTokenCall): Promise<OAuthTokens>;
}

/** What an OAuth network declares; the oauth module runs the authorization-code flow and the refresh. */
export interface OAuthSpec {
  defaultHosts: OAuthHosts;
  authorizeUrl(hosts: OAuthHosts): string;
  tokenUrl(hosts: OAuthHosts): string;
  scopes: readonly string[];
  /** How scopes are joined in the authorization URL: ' ' (RFC 6749, default) or ',' (Meta's networks). */
  scopeSeparator?: ' ' | ',';
  /** How the client authenticates at the token endpoint: HTTP Basic (X) or form fields (LinkedIn). */
  clientAuthentication: 'basic' | 'body';
  /**
   * Name of the client id parameter in the authorization URL and token requests: `client_id`
   * (RFC 6749, default) or the network's own (TikTok: `client_key`).
   */
  clientIdParameter?: string;
  /**
   * Parameters the network needs in the authorization URL besides RFC 6749's (Google: `access_type=offline`
   * for a refresh token, `prompt=consent` so a reconnect gets one too).
   */
  authorizeParams?: Readonly<Record<string, string>>;
  /** The code exchange's HTTP method: POST with a form (RFC 6749, default) or GET with a query (Facebook). */
  tokenEndpointMethod?: 'POST' | 'GET';
  /**
   * Runs after the code exchange, before the accounts are read: e.g. swaps a short-lived access token
   * for a long-lived one (Threads, Instagram, Facebook). Returns the tokens to keep.
   */
  afterCodeExchange?(tokens: OAuthTokens, context: OAuthHookContext): Promise<OAuthTokens>;
  /**
   * Networks that refresh the access token itself rather than with a refresh token (Threads,
   * Instagram): returns the new tokens. Without it, the RFC 6749 refresh-token grant is used.
   */
  refresh?(
    current: { accessToken: string; refreshToken: string | null },
    context: OAuthHookContext,
  ): Promise<OAuthTokens>;
  /**
   * How long before expiry the access token is refreshed when the channel is used (default 60 s).
   * Long-lived tokens that can be refreshed only while valid use a wide window (Threads: 30 days of 60);
   * a refresh that fails for a transient reason while the token is still valid is retried at the next use.
   */
  refreshWindowMs?: number;
  /**
   * Whether a refused token answer is a passing condition (a rate limit in the body of a 400), so the
   * call is retried instead of the grant being taken as refused. Default: only 429 and 5xx are.
   */
  transientTokenError?(status: number, body: unknown): boolean;
}
