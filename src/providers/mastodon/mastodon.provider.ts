import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { OutboundHttp, SsrfBlockedError } from '../../common/http/outbound-http';
import { commonDraftProblems } from '../draft-validation.util';
import { asId, asNonEmptyString, asNumber, asObject, asString } from '../provider-json.util';
import {
  InvalidCredentialsError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import { sentVideoId, videoToSend } from '../video-publish.util';
import { setting } from '../../config/settings';
import { defineProvider } from '../provider-plugin';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
  PublishedRef,
  SocialProvider,
} from '../social-provider.interface';
import { MASTODON, MastodonApi, MastodonResponse, mastodonErrorText } from './mastodon-api.client';
import { MASTODON_DEFAULT_LIMITS, MASTODON_DEFAULT_VIDEO, limitsFromInstance } from './mastodon.limits';
import { countMastodonCharacters } from './mastodon-text-length';
import { MastodonCredentials, MastodonCredentialsDto, parseMastodonCredentials } from './mastodon.credentials';
import { multipartFileBody } from './multipart-body';

export interface MastodonProviderOptions {
  /** How long to wait for an uploaded media to finish processing. Default 30000. */
  mediaPollTimeoutMs?: number;
  /** First delay between media polls; doubles up to 2 s. Default 200. */
  mediaPollInitialDelayMs?: number;
  /** Time budget of one media upload request. Default: the OutboundHttp default. */
  uploadTimeoutMs?: number;
  /** Pause before the next read of a video the instance is processing (MASTODON_VIDEO_POLL_MS). Default 2000. */
  videoPollMs?: number;
}

const MEDIA_CACHE_TTL_MS = 60 * 60 * 1000;
const MEDIA_CACHE_MAX_ENTRIES = 5_000;
const MAX_POLL_DELAY_MS = 2_000;
/** Checkpoint key of the attachment id of a video the instance received: never uploaded twice. */
const VIDEO_CHECKPOINT = 'mastodonVideoId';
/** How often a video the instance is processing is polled by default (Mastodon gives no hint). */
const VIDEO_POLL_MS = 2_000;
/** What a publisher asks of the video file: a container the instance takes (it transcodes the rest itself). */
const MASTODON_VIDEO = { label: MASTODON, mimeTypes: MASTODON_DEFAULT_VIDEO.mimeTypes };

/**
 * Mastodon adapter (REST API v1/v2). The status is created with `Idempotency-Key`, so retries of a
 * publication never create a second status (Mastodon keeps keys for one hour). A thread part is a
 * status with `in_reply_to_id` set to the previous part. Media ids uploaded for
 * a publication are remembered in-process for an hour so a retry after a failed status call reuses them.
 */
export class MastodonProvider implements SocialProvider {
  readonly id = 'mastodon' as const;
  private readonly uploadedMedia = new LRUCache<string, string>({
    max: MEDIA_CACHE_MAX_ENTRIES,
    ttl: MEDIA_CACHE_TTL_MS,
  });
  private readonly pollTimeoutMs: number;
  private readonly pollInitialDelayMs: number;

  constructor(
    private readonly http: OutboundHttp,
    private readonly options: MastodonProviderOptions = {},
  ) {
    this.pollTimeoutMs = options.mediaPollTimeoutMs ?? 30_000;
    this.pollInitialDelayMs = options.mediaPollInitialDelayMs ?? 200;
  }

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseMastodonCredentials(credentials);
    const api = new MastodonApi(this.http, creds);
    const host = new URL(creds.instanceUrl).host;

    const verified = await this.connectCall(api, '/api/v1/accounts/verify_credentials', true);
    if (verified.status === 401 || verified.status === 403) {
      const text = mastodonErrorText(verified.data) || `HTTP ${verified.status}`;
      throw new InvalidCredentialsError(`Mastodon rejected the access token: ${text}`, verified.status);
    }
    if (verified.status < 200 || verified.status >= 300) {
      throw new InvalidCredentialsError(
        `The Mastodon instance ${host} could not be reached (HTTP ${verified.status})`,
        verified.status,
      );
    }
    const account = asObject(verified.data);
    const accountId = asId(account?.id);
    const username = asNonEmptyString(account?.username);
    if (!account || !accountId || !username) {
      throw new InvalidCredentialsError(`The server at ${host} did not answer like a Mastodon instance`);
    }

    const instance = await this.connectCall(api, '/api/v2/instance', false).catch(() => undefined);
    const instanceData = instance && instance.status === 200 ? instance.data : undefined;
    const domain = asNonEmptyString(asObject(instanceData)?.domain) ?? host;

    return {
      externalId: `${host}:${accountId}`,
      name: asNonEmptyString(account.display_name) ?? username,
      handle: `@${username}@${domain}`,
      avatarUrl: asNonEmptyString(account.avatar) ?? null,
      profileUrl: asNonEmptyString(account.url) ?? null,
      limits: limitsFromInstance(instanceData),
      credentials: { instanceUrl: creds.instanceUrl, accessToken: creds.accessToken },
    };
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return countMastodonCharacters(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(MASTODON, post.content, post.media, limits);
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; this Mastodon instance allows ${limits.maxCharacters}`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseMastodonCredentials(input.credentials);
    const api = new MastodonApi(this.http, creds);
    const cacheKeys = input.media.map((m) => this.mediaCacheKey(creds, input.idempotencyKey, m));

    const mediaIds: string[] = [];
    const video = await this.sentVideo(api, input);
    if (video) mediaIds.push(video);
    else {
      for (const [index, media] of input.media.entries()) {
        mediaIds.push(await this.uploadMedia(api, media, cacheKeys[index]));
      }
    }

    const res = await api.call(
      {
        method: 'POST',
        path: '/api/v1/statuses',
        json: {
          status: input.content,
          media_ids: mediaIds,
          visibility: 'public',
          // A thread part: a reply to the previous part (Mastodon keeps the chain from there).
          ...(input.replyTo ? { in_reply_to_id: input.replyTo.parent.platformPostId } : {}),
        },
        headers: { 'idempotency-key': input.idempotencyKey },
      },
      'content',
    );
    const status = asObject(res.data);
    const statusId = asId(status?.id);
    if (!statusId) throw new TransientProviderError('Mastodon accepted the status but returned no id', res.status);
    for (const key of cacheKeys) this.uploadedMedia.delete(key);
    return {
      platformPostId: statusId,
      url:
        asNonEmptyString(status?.url) ?? asNonEmptyString(status?.uri) ?? `${creds.instanceUrl}/statuses/${statusId}`,
    };
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new MastodonApi(this.http, parseMastodonCredentials(credentials));
    const res = await api.call(
      { method: 'GET', path: `/api/v1/statuses/${encodeURIComponent(ref.platformPostId)}` },
      'content',
    );
    const status = asObject(res.data) ?? {};
    const count = (name: string): number | null => asNumber(status[name]) ?? null;
    const raw: Record<string, unknown> = {
      favourites_count: count('favourites_count'),
      reblogs_count: count('reblogs_count'),
      replies_count: count('replies_count'),
    };
    if ('quotes_count' in status) raw.quotes_count = count('quotes_count');
    return {
      metrics: {
        likes: count('favourites_count'),
        reposts: count('reblogs_count'),
        replies: count('replies_count'),
        quotes: count('quotes_count'),
        impressions: null,
        raw,
      },
    };
  }

  /** A connect-time call: transport failures become InvalidCredentialsError ("could not be reached"). */
  private async connectCall(api: MastodonApi, path: string, auth: boolean): Promise<MastodonResponse> {
    try {
      return await api.send({ method: 'GET', path, auth });
    } catch (err) {
      const host = new URL(api.origin).host;
      if (err instanceof SsrfBlockedError) {
        throw new InvalidCredentialsError(`The Mastodon instance URL is not allowed: ${err.message}`);
      }
      const reason = err instanceof Error ? `: ${err.message}` : '';
      throw new InvalidCredentialsError(`The Mastodon instance ${host} could not be reached${reason}`);
    }
  }

  /**
   * The post's video as an attachment the instance finished processing, or null when the post has
   * none. POST /api/v2/media streams it once (202: processing) and its id is checkpointed; then each
   * poll reads GET /api/v1/media/:id: 206 still processing (ProcessingPendingError, no worker held),
   * 200 with a `url` ready, 422 the instance could not process it (docs/adr/0041).
   */
  private async sentVideo(api: MastodonApi, input: PublishInput): Promise<string | null> {
    let mediaId = sentVideoId(input.checkpoint, VIDEO_CHECKPOINT);
    if (!mediaId) {
      // The instance's own limits were checked at validation (the channel's); it transcodes what it takes.
      const video = await videoToSend(input.media, MASTODON_VIDEO);
      if (!video) return null;
      const res = await api.call(
        {
          method: 'POST',
          path: '/api/v2/media',
          multipart: multipartFileBody('file', video, video.altText ? { description: video.altText } : {}),
          timeoutMs: this.options.uploadTimeoutMs,
        },
        'media',
      );
      const attachment = asObject(res.data);
      mediaId = asId(attachment?.id);
      if (!mediaId) throw new TransientProviderError('Mastodon accepted the video but returned no id', res.status);
      await input.saveCheckpoint({ [VIDEO_CHECKPOINT]: mediaId });
      if (res.status !== 202 && asString(attachment?.url) !== undefined) return mediaId;
    } else {
      let res: MastodonResponse;
      try {
        res = await api.call({ method: 'GET', path: `/api/v1/media/${encodeURIComponent(mediaId)}` }, 'media');
      } catch (err) {
        if (err instanceof ProviderError && err.status === 422) {
          throw new VideoProcessingFailedError(
            `Mastodon could not process the video (media ${mediaId}): ${err.message}`,
          );
        }
        throw err;
      }
      if (res.status === 200 && asString(asObject(res.data)?.url) !== undefined) return mediaId;
    }
    throw new ProcessingPendingError(
      `Mastodon is processing the video (media ${mediaId})`,
      this.options.videoPollMs ?? VIDEO_POLL_MS,
    );
  }

  /** POST /api/v2/media, then polls GET /api/v1/media/:id until processed. Returns the media id. */
  private async uploadMedia(api: MastodonApi, media: PublishMedia, cacheKey: string): Promise<string> {
    const cached = this.uploadedMedia.get(cacheKey);
    if (cached) return cached;

    const res = await api.call(
      {
        method: 'POST',
        path: '/api/v2/media',
        // `description`: the alt text (Mastodon's default limit is 1500 characters, the service's too).
        multipart: multipartFileBody('file', media, media.altText ? { description: media.altText } : {}),
        timeoutMs: this.options.uploadTimeoutMs,
      },
      'media',
    );
    const attachment = asObject(res.data);
    const mediaId = asId(attachment?.id);
    if (!mediaId) throw new TransientProviderError('Mastodon accepted the media but returned no id', res.status);
    if (res.status === 202 || asString(attachment?.url) === undefined) await this.waitUntilProcessed(api, mediaId);
    this.uploadedMedia.set(cacheKey, mediaId);
    return mediaId;
  }

  private async waitUntilProcessed(api: MastodonApi, mediaId: string): Promise<void> {
    const deadline = Date.now() + this.pollTimeoutMs;
    let delay = this.pollInitialDelayMs;
    for (;;) {
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      const res = await api.call({ method: 'GET', path: `/api/v1/media/${encodeURIComponent(mediaId)}` }, 'media');
      if (res.status === 200 && asString(asObject(res.data)?.url) !== undefined) return;
      if (Date.now() >= deadline) {
        throw new TransientProviderError('Mastodon is still processing the media; try again later');
      }
      delay = Math.min(delay * 2, MAX_POLL_DELAY_MS);
    }
  }

  private mediaCacheKey(creds: MastodonCredentials, idempotencyKey: string, media: PublishMedia): string {
    const token = createHash('sha256').update(creds.accessToken).digest('base64url').slice(0, 16);
    return `${creds.instanceUrl}|${token}|${idempotencyKey}|${media.id}`;
  }
}

/** The Mastodon plugin, registered in provider.list.ts. */
export const mastodonPlugin = defineProvider({
  id: 'mastodon',
  apiVersion: {
    pinned: 'v1 and v2 (/api/v1, /api/v2)',
    source:
      'Mastodon API documentation (mastodon/documentation), checked 2026-11-29; versions are path prefixes, no retirement dates',
  },
  displayName: 'Mastodon',
  connectKind: 'credentials',
  credentials: MastodonCredentialsDto,
  defaultLimits: MASTODON_DEFAULT_LIMITS,
  capabilities: { altText: true },
  settings: {
    videoPollMs: setting.int('MASTODON_VIDEO_POLL_MS', {
      default: VIDEO_POLL_MS,
      min: 10,
      description:
        'interval between two reads of a video the instance is processing (Mastodon gives no hint), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
  },
  create: ({ http, settings }) => new MastodonProvider(http, { videoPollMs: settings.videoPollMs }),
});
