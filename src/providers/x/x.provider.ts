import { randomBytes } from 'node:crypto';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { altTextProblems, commonDraftProblems } from '../draft-validation.util';
import { MediaSizeMismatchError, exactSizeChunks } from '../media-stream.util';
import { setting } from '../../config/settings';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import { mapHttpFailure } from '../provider-http.util';
import { asNumber, asObject, asString } from '../provider-json.util';
import {
  InvalidCredentialsError,
  MediaRejectedError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishMedia,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { X_NAME, XApi, isDuplicateRefusal, xErrorText } from './x-api.client';
import { countXCharacters, hasXUrl } from './x-text-length';
import { XCredentialsDto, parseXCredentials } from './x.credentials';
import { DEFAULT_VIDEO_POLL_MS, pollDelayMs, sentVideoId, videoRequirements, videoToSend } from '../video-publish.util';
import { X_LIMITS, X_MAX_ALT_TEXT, X_UPLOAD_CHUNK_BYTES, X_VIDEO_CONTAINERS, X_VIDEO_LIMITS } from './x.limits';
import { appCredentials, revokeAt, storedApiBase, storedToken, withRevocation } from '../token-revocation.util';

/** Checkpoint key of the media id of a video X received (uploaded and finalized): never uploaded twice. */
const VIDEO_CHECKPOINT = 'xVideoMediaId';
/** What X takes as a file: H.264/AAC in MP4 or MOV, index first. */
const X_VIDEO = videoRequirements(X_NAME, X_VIDEO_LIMITS, { mimeTypes: X_VIDEO_CONTAINERS, faststart: true });

/** How far before the publication's start the timeline lookup of a retry reaches. */
const LOOKUP_SLACK_MS = 60_000;

/** Text as X stores it, for comparing: URLs (rewritten to t.co, media links appended) and spacing removed. */
function comparable(text: string): string {
  return text
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The post a post replies to (`referenced_posts` of type `replied_to`, as X's OpenAPI 2.167 names the
 * field; `referenced_tweets` in answers of the API's earlier naming), if any.
 */
function repliedTo(tweet: Record<string, unknown> | undefined): string | undefined {
  const refs = tweet?.referenced_posts ?? tweet?.referenced_tweets;
  for (const ref of Array.isArray(refs) ? refs : []) {
    const r = asObject(ref);
    if (r?.type === 'replied_to') return asString(r.id);
  }
  return undefined;
}

/** X API v2 with a user's OAuth 2.0 token (connected through the oauth module). */
export class XProvider implements SocialProvider {
  readonly id = 'x';

  constructor(
    private readonly http: OutboundHttp,
    /** Pause before the next status read of a video when X gives no check_after_secs (X_VIDEO_POLL_MS). */
    private readonly videoPollMs = DEFAULT_VIDEO_POLL_MS,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseXCredentials(credentials);
    const api = new XApi(this.http, creds);
    let res;
    try {
      res = await api.send({ method: 'GET', path: '/2/users/me?user.fields=profile_image_url,username,name' });
    } catch (err) {
      throw new InvalidCredentialsError(`X could not be reached: ${(err as Error).message}`);
    }
    if (res.status !== 200) {
      throw new InvalidCredentialsError(`X refused the access token: ${xErrorText(res.data) || `HTTP ${res.status}`}`);
    }
    const user = asObject(asObject(res.data)?.data);
    const id = asString(user?.id);
    const username = asString(user?.username);
    if (!user || !id || !username) throw new InvalidCredentialsError('X did not return the account');
    const stored = asObject(credentials) ?? {};
    return {
      externalId: id,
      name: asString(user.name) ?? username,
      handle: `@${username}`,
      avatarUrl: asString(user.profile_image_url) ?? null,
      profileUrl: `https://x.com/${username}`,
      limits: { ...X_LIMITS, supportedMimeTypes: [...X_LIMITS.supportedMimeTypes] },
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        userId: id,
      },
    };
  }

  /** X's pay-per-use pricing charges a post with a link several times a plain one. */
  warnings(post: PostDraft): Problem[] {
    if (!hasXUrl(post.content)) return [];
    return [
      {
        field: 'content',
        message:
          "The text carries a link: under X's pay-per-use API pricing a post with a URL costs several times " +
          'a post without one',
      },
    ];
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return countXCharacters(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(X_NAME, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text counts ${length} characters as X weighs them (URLs count 23); X allows ${limits.maxCharacters}`,
      });
    }
    problems.push(...altTextProblems('X', post.media, X_MAX_ALT_TEXT));
    return problems;
  }

  /**
   * X has no idempotency key. A retry (attempt > 1) first looks for the post on the account's recent
   * timeline (same text, created since the publication started, and for a thread part replying to the
   * previous part) and returns it when found; X's own duplicate-content refusal on a retry triggers the
   * same lookup. See docs/adr/0017.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseXCredentials(input.credentials);
    const api = new XApi(this.http, creds);
    const retry = (input.attempt ?? 1) > 1;
    if (retry) {
      const found = await this.findRecent(api, creds.userId, input);
      if (found) return found;
    }
    const mediaIds: string[] = [];
    const video = await this.sentVideo(api, input);
    if (video) mediaIds.push(video);
    // An animated GIF has its own category (`tweet_gif` of the OpenAPI's media_category enum).
    else
      for (const media of input.media) {
        mediaIds.push((await this.upload(api, media, media.mimeType === 'image/gif' ? 'tweet_gif' : 'tweet_image')).id);
      }
    const json: Record<string, unknown> = { text: input.content };
    if (mediaIds.length) json.media = { media_ids: mediaIds };
    // A thread part: a reply to the previous part.
    if (input.replyTo) json.reply = { in_reply_to_tweet_id: input.replyTo.parent.platformPostId };
    const res = await api.send({ method: 'POST', path: '/2/tweets', json });
    if (isDuplicateRefusal(res.status, res.data) && retry) {
      const found = await this.findRecent(api, creds.userId, input);
      if (found) return found;
    }
    if (res.status < 200 || res.status >= 300) {
      throw mapHttpFailure(X_NAME, res.status, res.headers, xErrorText(res.data), 'content');
    }
    const id = asString(asObject(asObject(res.data)?.data)?.id);
    if (!id) throw new TransientProviderError('X accepted the post but returned no id', res.status);
    return { platformPostId: id, url: this.urlOf(id) };
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new XApi(this.http, parseXCredentials(credentials));
    const res = await api.call(
      { method: 'GET', path: `/2/tweets/${encodeURIComponent(ref.platformPostId)}?post.fields=public_metrics` },
      'content',
    );
    const m = asObject(asObject(asObject(res.data)?.data)?.public_metrics) ?? {};
    const n = (k: string): number | null => asNumber(m[k]) ?? null;
    return {
      metrics: {
        likes: n('like_count'),
        reposts: n('retweet_count'),
        replies: n('reply_count'),
        quotes: n('quote_count'),
        impressions: n('impression_count'),
        raw: { ...m },
      },
    };
  }

  /**
   * The account's post with this text created since the publication started (and, for a thread part,
   * replying to the previous part), if any.
   */
  private async findRecent(api: XApi, userId: string | null, input: PublishInput): Promise<PublishResult | null> {
    if (!userId) return null;
    const since = new Date(input.createdAt.getTime() - LOOKUP_SLACK_MS).toISOString();
    const res = await api.call(
      {
        method: 'GET',
        path:
          // X's OpenAPI (2.167): `post.fields` (no `tweet.fields`), the references as the expansion `referenced_posts`.
          `/2/users/${encodeURIComponent(userId)}/tweets?max_results=20&post.fields=created_at&expansions=referenced_posts` +
          `&start_time=${encodeURIComponent(since)}`,
      },
      'content',
    );
    const wanted = comparable(input.content);
    const parent = input.replyTo?.parent.platformPostId;
    const items = asObject(res.data)?.data;
    for (const item of Array.isArray(items) ? items : []) {
      const tweet = asObject(item);
      const id = asString(tweet?.id);
      if (!id || comparable(asString(tweet?.text) ?? '') !== wanted) continue;
      if (parent !== undefined && repliedTo(tweet) !== parent) continue;
      return { platformPostId: id, url: this.urlOf(id) };
    }
    return null;
  }

  /**
   * The post's video as a media id X finished processing, or null when the post has none. Uploaded
   * once (the id is checkpointed once finalized); while X processes it, ProcessingPendingError with X's
   * `check_after_secs`, and the next poll reads the status of the checkpointed id (docs/adr/0041).
   */
  private async sentVideo(api: XApi, input: PublishInput): Promise<string | null> {
    let mediaId = sentVideoId(input.checkpoint, VIDEO_CHECKPOINT);
    let processing: Record<string, unknown> | undefined;
    if (!mediaId) {
      const video = await videoToSend(input.media, X_VIDEO);
      if (!video) return null;
      const sent = await this.upload(api, video, 'tweet_video');
      mediaId = sent.id;
      await input.saveCheckpoint({ [VIDEO_CHECKPOINT]: mediaId });
      // No processing_info: ready at once.
      if (!sent.processing) return mediaId;
      processing = sent.processing;
    } else {
      const res = await api.call(
        { method: 'GET', path: `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}` },
        'media',
      );
      processing = asObject(asObject(asObject(res.data)?.data)?.processing_info);
      if (!processing) return mediaId;
    }
    const state = asString(processing.state);
    if (state === 'succeeded') return mediaId;
    if (state === 'failed') {
      const error = asObject(processing.error);
      const why = asString(error?.message) ?? asString(error?.name) ?? 'no reason given';
      throw new VideoProcessingFailedError(`X could not process the video (media ${mediaId}): ${why}`);
    }
    const progress = asNumber(processing.progress_percent);
    throw new ProcessingPendingError(
      `X is processing the video (media ${mediaId}, ${state ?? 'pending'}${progress !== undefined ? `, ${progress}%` : ''})`,
      pollDelayMs(asNumber(processing.check_after_secs), this.videoPollMs),
    );
  }

  /**
   * Chunked upload: initialize, append 1 MiB segments (streamed, never the whole file in memory),
   * finalize. Returns the media id and, for video, X's `processing_info`.
   */
  private async upload(
    api: XApi,
    media: PublishMedia,
    category: 'tweet_image' | 'tweet_gif' | 'tweet_video',
  ): Promise<{ id: string; processing?: Record<string, unknown> }> {
    const init = await api.call(
      {
        method: 'POST',
        path: '/2/media/upload/initialize',
        json: { media_type: media.mimeType, total_bytes: media.size, media_category: category },
      },
      'media',
    );
    const mediaId = asString(asObject(asObject(init.data)?.data)?.id);
    if (!mediaId) throw new TransientProviderError('X initialized the upload but returned no media id', init.status);
    let segment = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const chunk = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      const boundary = `----x${randomBytes(12).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="segment_index"\r\n\r\n${segment}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="blob"\r\n` +
            `Content-Type: application/octet-stream\r\n\r\n`,
        ),
        chunk,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      await api.call(
        {
          method: 'POST',
          path: `/2/media/upload/${encodeURIComponent(mediaId)}/append`,
          body,
          contentType: `multipart/form-data; boundary=${boundary}`,
        },
        'media',
      );
      segment++;
    };
    try {
      for await (const piece of exactSizeChunks(media)) {
        pending.push(piece);
        pendingBytes += piece.length;
        if (pendingBytes >= X_UPLOAD_CHUNK_BYTES) await flush();
      }
      await flush();
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (err instanceof MediaSizeMismatchError)
        throw new MediaRejectedError(`The media could not be sent to X: ${err.message}`);
      throw new TransientProviderError(`The media could not be read for X: ${(err as Error).message}`);
    }
    const finalized = await api.call(
      { method: 'POST', path: `/2/media/upload/${encodeURIComponent(mediaId)}/finalize` },
      'media',
    );
    const processing = asObject(asObject(asObject(finalized.data)?.data)?.processing_info);
    if (media.altText) {
      // Validation keeps it within X's limit; text changed since then is cut rather than failing the post.
      const text = [...media.altText].slice(0, X_MAX_ALT_TEXT).join('');
      await api.call(
        { method: 'POST', path: '/2/media/metadata', json: { id: mediaId, metadata: { alt_text: { text } } } },
        'media',
      );
    }
    return { id: mediaId, processing };
  }

  private urlOf(id: string): string {
    return `https://x.com/i/web/status/${id}`;
  }
}

/** The X plugin: OAuth 2.0 authorization code with PKCE, registered in provider.list.ts. */
export const xPlugin = defineProvider({
  id: 'x',
  apiVersion: {
    pinned: '2',
    source:
      'X API v2 OpenAPI (xdevplatform/xdk, recorded in test/fixtures/networks/x), checked 2026-11-29; no retirement date stated',
  },
  displayName: 'X',
  connectKind: 'oauth',
  credentials: XCredentialsDto,
  defaultLimits: X_LIMITS,
  capabilities: { altText: true },
  oauth: {
    defaultHosts: { auth: 'https://x.com', api: 'https://api.x.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/i/oauth2/authorize`,
    tokenUrl: (hosts) => `${hosts.api}/2/oauth2/token`,
    scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    clientAuthentication: 'basic',
  },
  settings: {
    ...oauthAppSettings('X', {
      clientId: 'X developer app, OAuth 2.0 (confidential client); X is listed disabled without both',
      authBaseUrl: 'override of https://x.com (consent page), e.g. a test server',
      apiBaseUrl: 'override of https://api.x.com (API and token endpoint)',
    }),
    videoPollMs: setting.int('X_VIDEO_POLL_MS', {
      default: DEFAULT_VIDEO_POLL_MS,
      min: 10,
      description:
        "interval between two status reads of a video X is processing when X gives no check_after_secs (X's hint, 1 to 60 s, is followed otherwise), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS",
    }),
  },
  // Revocation (POST /2/oauth2/revoke, the app authenticated with Basic as a confidential client): the
  // refresh token, then the access token, so neither outlives the disconnect.
  create: ({ http, settings }) =>
    withRevocation(new XProvider(http, settings.videoPollMs), async (credentials) => {
      const app = appCredentials('X', settings);
      const url = `${storedApiBase(credentials, oauthClientSettings(settings).apiBaseUrl ?? 'https://api.x.com')}/2/oauth2/revoke`;
      for (const hint of ['refresh_token', 'access_token'] as const) {
        const token = storedToken(credentials, hint === 'refresh_token' ? 'refreshToken' : 'accessToken');
        if (!token) continue;
        await revokeAt(http, 'X', { method: 'POST', url, basic: app, form: { token, token_type_hint: hint } });
      }
    }),
});
