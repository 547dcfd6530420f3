import type { OutboundHttp } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems } from '../draft-validation.util';
import { exactSizeChunks } from '../media-stream.util';
import { copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
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
  MediaDescriptor,
  MetricsResult,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishMedia,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { optionsOf } from '../target-options.util';
import { TIKTOK_NAME, TikTokApi, mapTikTokFailure, tiktokError } from './tiktok-api.client';
import { TikTokCredentials, TikTokCredentialsDto, parseTikTokCredentials } from './tiktok.credentials';
import {
  TIKTOK_LIMITS,
  TIKTOK_MAX_PHOTOS,
  TIKTOK_PHOTO_TYPES,
  TIKTOK_VIDEO_TYPES,
  tiktokChunkRange,
  tiktokChunking,
} from './tiktok.limits';
import { TIKTOK_OPTIONS_SCHEMA, TikTokCreatorInfo, TikTokOptions, readTikTokOptions } from './tiktok.options';
import { appCredentials, revokeAt, storedApiBase, storedToken, withRevocation } from '../token-revocation.util';

/** Interrupted chunks re-sent within one attempt before it gives up (the next attempt resumes). */
const MAX_INTERRUPTIONS = 3;

/** What a publication saved (docs/adr/0023): the publish id and upload URL, the chunks sent, the post. */
interface TikTokCheckpoint {
  publishId?: string;
  /** A photo post (content/init): its failures are the photos', not a video's. */
  photo?: boolean;
  uploadUrl?: string | null;
  chunkSize?: number;
  totalChunkCount?: number;
  chunksDone?: number;
  postId?: string;
  url?: string;
}

export interface TikTokSettings {
  pullFromUrl: boolean;
  chunkBytes: number;
  statusPollMs: number;
}

const isVideo = (m: MediaDescriptor) => TIKTOK_VIDEO_TYPES.includes(m.mimeType.toLowerCase());
const isPhoto = (m: MediaDescriptor) => TIKTOK_PHOTO_TYPES.includes(m.mimeType.toLowerCase());
/** A status read refused for TikTok's per-token limit (30 a minute): waited out like processing. */
const isRateLimited = (err: unknown) => err instanceof TransientProviderError && err.code === 'PROVIDER_RATE_LIMITED';
const durationMsOf = (m: MediaDescriptor): number | null => {
  const d = (m as MediaDescriptor & { durationMs?: number | null }).durationMs;
  return typeof d === 'number' ? d : null;
};

/** TikTok's fail_reason values that mean the video itself was refused. */
const MEDIA_FAIL_REASONS = new Set([
  'file_format_check_failed',
  'duration_check_failed',
  'frame_rate_check_failed',
  'picture_size_check_failed',
  'video_pull_failed',
  'photo_pull_failed',
]);

/**
 * TikTok's Content Posting API (Direct Post) with a creator's OAuth token: creator_info before
 * each post (privacy levels, interaction switches, maximum duration), a video by FILE_UPLOAD in
 * chunks (or PULL_FROM_URL) or photos pulled from our signed URLs, then the publish status, read by
 * the publisher's delayed polls without holding a worker (docs/adr/0039, 0042).
 */
export class TikTokProvider implements SocialProvider {
  readonly id = 'tiktok';

  constructor(
    private readonly http: OutboundHttp,
    private readonly settings: TikTokSettings,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseTikTokCredentials(credentials);
    const api = new TikTokApi(this.http, creds);
    let data;
    try {
      data = await api.call(
        { method: 'GET', path: '/v2/user/info/?fields=open_id,union_id,avatar_url,display_name,username' },
        'content',
      );
    } catch (err) {
      throw new InvalidCredentialsError(`TikTok refused the access token: ${(err as Error).message}`);
    }
    const user = asObject(data.user);
    const openId = asString(user?.open_id);
    if (!openId) throw new InvalidCredentialsError('TikTok did not return the user');
    const username = asString(user?.username) ?? null;
    const name = asString(user?.display_name) || username || openId;
    const stored = asObject(credentials) ?? {};
    return {
      externalId: openId,
      kind: 'personal',
      name,
      handle: username ?? name,
      avatarUrl: asString(user?.avatar_url) ?? null,
      profileUrl: username ? `https://www.tiktok.com/@${username}` : null,
      limits: copyLimits(TIKTOK_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        openId,
        ...(username ? { username } : {}),
      },
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(TIKTOK_NAME, post.content, post.media, limits);
    const videos = post.media.filter(isVideo).length;
    const photos = post.media.filter(isPhoto).length;
    if (videos === 0 && photos === 0) {
      problems.push({
        field: 'mediaIds',
        message: `A TikTok post is one video, or 1 to ${TIKTOK_MAX_PHOTOS} photos (JPEG or WebP)`,
      });
    }
    const kind = videos > 0 ? 'video' : photos > 0 ? 'photo' : null;
    problems.push(...readTikTokOptions(optionsOf(post), null, kind, photos).problems);
    return problems;
  }

  /**
   * creator_info, then init (checkpointed with its publish id before any byte is sent), the chunks
   * (each checkpointed), then one read of the status: PUBLISH_COMPLETE returns the post, FAILED is a
   * typed refusal, still processing throws ProcessingPendingError so the publisher polls again later
   * with this checkpoint. A retry or a poll resumes from the checkpoint: never a second init of the
   * same publication once its publish id is known.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseTikTokCredentials(input.credentials);
    const api = new TikTokApi(this.http, creds);
    let state: TikTokCheckpoint = { ...((input.checkpoint ?? {}) as TikTokCheckpoint) };
    const save = async (next: TikTokCheckpoint) => {
      state = next;
      await input.saveCheckpoint({ ...next });
    };
    if (state.postId && state.url) return { platformPostId: state.postId, url: state.url };
    const video = input.media.find(isVideo) ?? null;
    const photos = input.media.filter(isPhoto);
    if (!video && photos.length === 0) throw new MediaRejectedError('A TikTok post needs one video or photos');

    if (!state.publishId) {
      const creator = await this.creatorInfo(api);
      const options = this.checkAgainstCreator(input, video, photos.length, creator);
      await save(
        video ? await this.init(api, input, video, options) : await this.initPhotos(api, input, photos, options),
      );
    }
    if (video && state.uploadUrl && (state.chunksDone ?? 0) < (state.totalChunkCount ?? 1)) {
      await this.uploadChunks(api, video, state, save);
    }
    const ref = await this.readStatus(api, creds, state.publishId!, state.photo === true);
    await save({ ...state, postId: ref.platformPostId, url: ref.url });
    return ref;
  }

  /** likes, shares, comments and views of a public post (video.list scope). */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new TikTokApi(this.http, parseTikTokCredentials(credentials));
    const data = await api.call(
      {
        method: 'POST',
        path: '/v2/video/query/?fields=id,like_count,comment_count,share_count,view_count',
        json: { filters: { video_ids: [ref.platformPostId] } },
      },
      'content',
    );
    const video = asObject(asArray(data.videos)?.[0]);
    if (!video) {
      throw new ContentRejectedError(
        `TikTok does not list post ${ref.platformPostId} (private, still in review, or deleted)`,
        404,
      );
    }
    const n = (k: string): number | null => asNumber(video[k]) ?? null;
    return {
      metrics: {
        likes: n('like_count'),
        reposts: n('share_count'),
        replies: n('comment_count'),
        quotes: null,
        impressions: n('view_count'),
        raw: { ...video },
      },
    };
  }

  private async creatorInfo(api: TikTokApi): Promise<TikTokCreatorInfo> {
    const data = await api.call({ method: 'POST', path: '/v2/post/publish/creator_info/query/', json: {} }, 'content');
    return {
      username: asString(data.creator_username) ?? null,
      nickname: asString(data.creator_nickname) ?? null,
      avatarUrl: asString(data.creator_avatar_url) ?? null,
      privacyLevelOptions: (asArray(data.privacy_level_options) ?? []).filter(
        (v): v is string => typeof v === 'string',
      ),
      commentDisabled: data.comment_disabled === true,
      duetDisabled: data.duet_disabled === true,
      stitchDisabled: data.stitch_disabled === true,
      maxVideoPostDurationSec: asNumber(data.max_video_post_duration_sec) ?? null,
    };
  }

  /**
   * The options checked against what the creator may choose now: the privacy level among theirs
   * (never chosen for them), the interaction switches the creator turned off kept off, the duration.
   */
  private checkAgainstCreator(
    input: PublishInput,
    video: PublishMedia | null,
    photoCount: number,
    creator: TikTokCreatorInfo,
  ): TikTokOptions {
    const { options, problems } = readTikTokOptions(
      optionsOf(input),
      creator.privacyLevelOptions,
      video ? 'video' : 'photo',
      photoCount,
    );
    if (!options) {
      throw new ContentRejectedError(`TikTok options: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
    }
    const duration = video ? durationMsOf(video) : null;
    if (duration !== null && creator.maxVideoPostDurationSec && duration > creator.maxVideoPostDurationSec * 1000) {
      throw new MediaRejectedError(
        `The video lasts ${Math.round(duration / 1000)} seconds; this TikTok creator may post at most ${creator.maxVideoPostDurationSec}`,
      );
    }
    return {
      ...options,
      disableComment: options.disableComment || creator.commentDisabled,
      disableDuet: options.disableDuet || creator.duetDisabled,
      disableStitch: options.disableStitch || creator.stitchDisabled,
    };
  }

  private async init(
    api: TikTokApi,
    input: PublishInput,
    video: PublishMedia,
    options: TikTokOptions,
  ): Promise<TikTokCheckpoint> {
    const postInfo: Record<string, unknown> = {
      title: input.content,
      privacy_level: options.privacyLevel,
      disable_comment: options.disableComment,
      disable_duet: options.disableDuet,
      disable_stitch: options.disableStitch,
      brand_content_toggle: options.brandContent,
      brand_organic_toggle: options.brandOrganic,
      is_aigc: options.isAigc,
    };
    if (options.videoCoverTimestampMs !== null) postInfo.video_cover_timestamp_ms = options.videoCoverTimestampMs;
    if (this.settings.pullFromUrl) {
      const data = await api.call(
        {
          method: 'POST',
          path: '/v2/post/publish/video/init/',
          json: { post_info: postInfo, source_info: { source: 'PULL_FROM_URL', video_url: await video.publicUrl() } },
        },
        'content',
      );
      const publishId = asString(data.publish_id);
      if (!publishId) throw new TransientProviderError('TikTok accepted the post but returned no publish_id');
      return { publishId, uploadUrl: null };
    }
    const chunking = tiktokChunking(video.size, this.settings.chunkBytes);
    const data = await api.call(
      {
        method: 'POST',
        path: '/v2/post/publish/video/init/',
        json: {
          post_info: postInfo,
          source_info: {
            source: 'FILE_UPLOAD',
            video_size: video.size,
            chunk_size: chunking.chunkSize,
            total_chunk_count: chunking.totalChunkCount,
          },
        },
      },
      'content',
    );
    const publishId = asString(data.publish_id);
    const uploadUrl = asString(data.upload_url);
    if (!publishId || !uploadUrl)
      throw new TransientProviderError('TikTok accepted the post but returned no upload URL');
    return { publishId, uploadUrl, ...chunking, chunksDone: 0 };
  }

  /**
   * A photo post (content/init, media_type PHOTO): TikTok pulls each image from its signed URL of
   * ours (PULL_FROM_URL is the only source photos take, so PUBLIC_BASE_URL's domain must be verified
   * with TikTok). The post's text is the description; the optional title and cover index are options.
   */
  private async initPhotos(
    api: TikTokApi,
    input: PublishInput,
    photos: PublishMedia[],
    options: TikTokOptions,
  ): Promise<TikTokCheckpoint> {
    const postInfo: Record<string, unknown> = {
      description: input.content,
      privacy_level: options.privacyLevel,
      disable_comment: options.disableComment,
      auto_add_music: options.autoAddMusic,
      brand_content_toggle: options.brandContent,
      brand_organic_toggle: options.brandOrganic,
      is_aigc: options.isAigc,
    };
    if (options.title !== null) postInfo.title = options.title;
    const urls: string[] = [];
    for (const photo of photos) urls.push(await photo.publicUrl());
    const data = await api.call(
      {
        method: 'POST',
        path: '/v2/post/publish/content/init/',
        json: {
          media_type: 'PHOTO',
          post_mode: 'DIRECT_POST',
          post_info: postInfo,
          source_info: { source: 'PULL_FROM_URL', photo_cover_index: options.photoCoverIndex, photo_images: urls },
        },
      },
      'content',
    );
    const publishId = asString(data.publish_id);
    if (!publishId) throw new TransientProviderError('TikTok accepted the photo post but returned no publish_id');
    return { publishId, photo: true, uploadUrl: null };
  }

  /** Sends the chunks not yet sent, in order, saving the count after each. */
  private async uploadChunks(
    api: TikTokApi,
    video: PublishMedia,
    state: TikTokCheckpoint,
    save: (next: TikTokCheckpoint) => Promise<void>,
  ): Promise<void> {
    const chunking = { chunkSize: state.chunkSize!, totalChunkCount: state.totalChunkCount! };
    let done = state.chunksDone ?? 0;
    let interruptions = 0;
    while (done < chunking.totalChunkCount) {
      const { first, last } = tiktokChunkRange(done, video.size, chunking);
      const body = await readRange(video, first, last);
      try {
        const res = await api.putChunk(state.uploadUrl!, video.mimeType, body, first, last, video.size);
        if (res.status !== 201 && res.status !== 206 && res.status !== 200) throw mapTikTokFailure(res, 'media');
      } catch (err) {
        if (!(err instanceof ProviderError) || !err.transient || ++interruptions > MAX_INTERRUPTIONS) throw err;
        continue; // an interrupted chunk is sent again
      }
      done += 1;
      await save({ ...state, chunksDone: done });
    }
  }

  /**
   * One status/fetch: PUBLISH_COMPLETE gives the post; FAILED is VideoProcessingFailedError (a photo
   * post: a media or content refusal) with TikTok's fail_reason; still processing, or TikTok's limit of
   * 30 status reads a minute per token reached, is ProcessingPendingError: the publisher reads again
   * after TIKTOK_STATUS_POLL_MS (or TikTok's wait), within VIDEO_PROCESSING_MAX_WAIT_SECONDS.
   */
  private async readStatus(
    api: TikTokApi,
    creds: TikTokCredentials,
    publishId: string,
    photo: boolean,
  ): Promise<PublishResult> {
    const { res, postIds } = await api.status(publishId);
    const ok = res.status === 200 && (tiktokError(res.data).code || 'ok') === 'ok';
    if (!ok) {
      const failure = mapTikTokFailure(res, 'content');
      if (isRateLimited(failure)) {
        const wait = (failure as TransientProviderError).retryAfterSeconds ?? 60;
        throw new ProcessingPendingError(
          `TikTok limits status reads; the post's status is read again in ${wait} s`,
          Math.max(this.settings.statusPollMs, wait * 1000),
        );
      }
      throw failure;
    }
    const data = asObject(asObject(res.data)?.data) ?? {};
    const status = asString(data.status);
    if (status === 'PUBLISH_COMPLETE' || status === 'SEND_TO_USER_INBOX') {
      const postId = postIds[0] ?? null;
      const profile = creds.username ? `https://www.tiktok.com/@${creds.username}` : 'https://www.tiktok.com/';
      const kind = photo ? 'photo' : 'video';
      // A private (SELF_ONLY) post has no public id: the publish id stands for it.
      return postId
        ? {
            platformPostId: postId,
            url: creds.username ? `${profile}/${kind}/${postId}` : `https://www.tiktok.com/${kind}/${postId}`,
          }
        : { platformPostId: publishId, url: profile };
    }
    if (status === 'FAILED') {
      const reason = asString(data.fail_reason) ?? 'unknown reason';
      if (!photo) throw new VideoProcessingFailedError(`TikTok could not publish the video: ${reason}`);
      const message = `TikTok could not publish the photos: ${reason}`;
      throw MEDIA_FAIL_REASONS.has(reason) ? new MediaRejectedError(message) : new ContentRejectedError(message);
    }
    throw new ProcessingPendingError(
      `TikTok is still processing the post (${status ?? 'no status'}); its status is read again later (it is not posted again)`,
      this.settings.statusPollMs,
    );
  }
}

/** The bytes `first..last` of the media (reading from the start: the stream cannot seek). */
async function readRange(media: PublishMedia, first: number, last: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let position = 0;
  for await (const chunk of exactSizeChunks(media)) {
    const start = Math.max(first - position, 0);
    const end = Math.min(last + 1 - position, chunk.length);
    if (end > start) parts.push(chunk.subarray(start, end));
    position += chunk.length;
    if (position > last) break;
  }
  return Buffer.concat(parts);
}

/** Read the user, publish videos and photos, read their statistics. */
const TIKTOK_SCOPES = ['user.info.basic', 'video.publish', 'video.list'];

/** The TikTok plugin: OAuth 2.0 with TikTok's client_key, registered in provider.list.ts. */
export const tiktokPlugin = defineProvider({
  id: 'tiktok',
  apiVersion: {
    pinned: 'v2',
    source: 'TikTok for Developers, Content Posting API v2, checked 2026-11-29; no retirement date stated',
  },
  displayName: 'TikTok',
  connectKind: 'oauth',
  credentials: TikTokCredentialsDto,
  defaultLimits: TIKTOK_LIMITS,
  capabilities: { altText: false },
  optionsSchema: TIKTOK_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: { auth: 'https://www.tiktok.com', api: 'https://open.tiktokapis.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/v2/auth/authorize/`,
    tokenUrl: (hosts) => `${hosts.api}/v2/oauth/token/`,
    scopes: TIKTOK_SCOPES,
    scopeSeparator: ',',
    clientAuthentication: 'body',
    clientIdParameter: 'client_key',
  },
  settings: {
    ...oauthAppSettings('TIKTOK', {
      clientId: {
        env: 'TIKTOK_CLIENT_KEY',
        description:
          'TikTok for Developers app with Login Kit and the Content Posting API, Direct Post on (callback {PUBLIC_BASE_URL}/api/oauth/tiktok/callback); TikTok is listed disabled without both',
      },
      authBaseUrl: 'override of https://www.tiktok.com (consent page), e.g. a test server',
      apiBaseUrl: 'override of https://open.tiktokapis.com (API and token endpoint)',
    }),
    pullFromUrl: setting.bool('TIKTOK_PULL_FROM_URL', {
      default: false,
      description:
        'TikTok downloads videos from PUBLIC_BASE_URL (its domain verified with TikTok) instead of chunked uploads',
    }),
    chunkBytes: setting.int('TIKTOK_UPLOAD_CHUNK_BYTES', {
      default: 10 * 1024 * 1024,
      min: 5 * 1024 * 1024,
      max: 64 * 1024 * 1024,
      description: 'FILE_UPLOAD chunk size (5 to 64 MB; smaller videos go in one chunk)',
    }),
    statusPollMs: setting.int('TIKTOK_STATUS_POLL_MS', {
      default: 5000,
      min: 10,
      description:
        'interval between two publish status reads, each a delayed job that holds no worker (TikTok allows 30 a minute per user; a refused read waits as TikTok says); the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
  },
  // Revocation: POST /v2/oauth/revoke/ with the app's client key and secret and the access token.
  create: ({ http, settings }) =>
    withRevocation(
      new TikTokProvider(http, {
        pullFromUrl: settings.pullFromUrl,
        chunkBytes: settings.chunkBytes,
        statusPollMs: settings.statusPollMs,
      }),
      async (credentials) => {
        const app = appCredentials('TikTok', settings, 'client key and secret');
        const token = storedToken(credentials, 'accessToken');
        if (!token) return;
        const url = `${storedApiBase(credentials, oauthClientSettings(settings).apiBaseUrl ?? 'https://open.tiktokapis.com')}/v2/oauth/revoke/`;
        await revokeAt(http, 'TikTok', {
          method: 'POST',
          url,
          form: { client_key: app.id, client_secret: app.secret, token },
        });
      },
    ),
});
