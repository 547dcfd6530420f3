import type { OutboundHttp } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems } from '../draft-validation.util';
import { exactSizeChunks } from '../media-stream.util';
import { comparableText, copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  MediaRejectedError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import type {
  ChannelLimits,
  CommentInput,
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
import { YOUTUBE_NAME, YouTubeApi, googleError, mapYouTubeFailure, nextOffset } from './youtube-api.client';
import { YOUTUBE_COSTS, YouTubeQuotaLedger } from './youtube-quota';
import { YouTubeCredentialsDto, parseYouTubeCredentials } from './youtube.credentials';
import {
  YOUTUBE_LIMITS,
  YOUTUBE_MAX_DESCRIPTION_BYTES,
  YOUTUBE_MAX_THUMBNAIL_BYTES,
  YOUTUBE_SHORTS_MAX_SECONDS,
  YOUTUBE_THUMBNAIL_TYPES,
  YOUTUBE_VIDEO_TYPES,
} from './youtube.limits';
import { YOUTUBE_OPTIONS_SCHEMA, YouTubeOptions, defaultTitle, readYouTubeOptions } from './youtube.options';
import { revokeAt, storedToken, withRevocation } from '../token-revocation.util';

/** Chunks of a resumable upload are multiples of 256 KiB (Google's rule). */
export const YOUTUBE_CHUNK_UNIT = 256 * 1024;
/** Interrupted chunks resumed within one attempt before the attempt gives up (the next resumes again). */
const MAX_INTERRUPTIONS = 3;

/** What a publication saved (docs/adr/0023): the upload session, then the video, then what followed. */
interface YouTubeCheckpoint {
  /** The resumable session URI: a retry resumes it rather than starting a second upload. */
  session?: string;
  /** Bytes the session had acknowledged when last saved (the session itself is asked on resume). */
  offset?: number;
  videoId?: string;
  thumbnailDone?: boolean;
}

export interface YouTubeSettings {
  chunkBytes: number;
  processingPollMs: number;
  dailyUploads: number;
  dailyUnits: number;
}

const isVideo = (m: MediaDescriptor) => YOUTUBE_VIDEO_TYPES.includes(m.mimeType.toLowerCase());
const isImage = (m: MediaDescriptor) => YOUTUBE_THUMBNAIL_TYPES.includes(m.mimeType.toLowerCase());
const durationMsOf = (m: MediaDescriptor): number | null => {
  const d = (m as MediaDescriptor & { durationMs?: number | null }).durationMs;
  return typeof d === 'number' ? d : null;
};
const watchUrl = (id: string, short: boolean) =>
  short ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`;

/**
 * YouTube Data API v3 with a Google account's OAuth token: the channels it manages (one chosen per
 * channel of ours), resumable video uploads checkpointed by their session URI, custom thumbnails,
 * processing status and statistics. Quota refusals wait for the daily reset (docs/adr/0039).
 */
export class YouTubeProvider implements SocialProvider {
  readonly id = 'youtube';
  private readonly quota: YouTubeQuotaLedger;

  constructor(
    private readonly http: OutboundHttp,
    private readonly settings: YouTubeSettings,
  ) {
    this.quota = new YouTubeQuotaLedger(settings.dailyUploads, settings.dailyUnits);
  }

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const [first] = await this.connectTargets(credentials);
    return first;
  }

  /** Every YouTube channel of the Google account (channels.list mine=true); several: the caller chooses. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const creds = parseYouTubeCredentials(credentials);
    const api = new YouTubeApi(this.http, creds, this.quota);
    let res;
    try {
      res = await api.send({
        method: 'GET',
        path: '/youtube/v3/channels?part=snippet,statistics&mine=true&maxResults=50',
      });
    } catch (err) {
      throw new InvalidCredentialsError(`YouTube could not be reached: ${(err as Error).message}`);
    }
    this.quota.spend(YOUTUBE_COSTS.list);
    if (res.status !== 200) {
      const { reason, message } = googleError(res.data);
      throw new InvalidCredentialsError(
        `YouTube refused the access token: ${reason ?? `HTTP ${res.status}`} ${message}`.trim(),
      );
    }
    const items = (asArray(asObject(res.data)?.items) ?? []).map(asObject).filter((c) => asString(c?.id));
    if (items.length === 0) {
      throw new InvalidCredentialsError(
        'This Google account has no YouTube channel: create one on youtube.com (or sign in as the brand account) and connect again',
      );
    }
    const stored = asObject(credentials) ?? {};
    return items.map((channel) => {
      const id = asString(channel!.id)!;
      const snippet = asObject(channel!.snippet);
      const name = asString(snippet?.title) ?? id;
      const handle = asString(snippet?.customUrl) ?? name;
      const thumbnails = asObject(snippet?.thumbnails);
      return {
        externalId: id,
        kind: 'personal',
        name,
        handle,
        avatarUrl: asString(asObject(thumbnails?.default)?.url) ?? null,
        profileUrl: `https://www.youtube.com/channel/${id}`,
        limits: copyLimits(YOUTUBE_LIMITS),
        credentials: {
          accessToken: creds.accessToken,
          refreshToken: stored.refreshToken ?? null,
          expiresAt: stored.expiresAt ?? null,
          scope: stored.scope ?? null,
          apiBaseUrl: creds.apiBaseUrl,
          channelId: id,
        },
      };
    });
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(YOUTUBE_NAME, post.content, post.media, limits);
    const videos = post.media.filter(isVideo);
    const images = post.media.filter(isImage);
    if (videos.length !== 1) {
      problems.push({
        field: 'mediaIds',
        message: `A YouTube post is one video (got ${videos.length}), with at most one image as its custom thumbnail`,
      });
    }
    if (images.length > 1) {
      problems.push({ field: 'mediaIds', message: 'YouTube takes one custom thumbnail image per video' });
    }
    for (const image of images) {
      if (image.size > YOUTUBE_MAX_THUMBNAIL_BYTES) {
        problems.push({
          field: 'mediaIds',
          message: `Thumbnail ${image.id} is ${image.size} bytes; YouTube accepts thumbnails of at most 2 MiB`,
        });
      }
    }
    const description = Buffer.byteLength(post.content, 'utf8');
    if (description > YOUTUBE_MAX_DESCRIPTION_BYTES) {
      problems.push({
        field: 'content',
        message: `The description is ${description} bytes; YouTube allows ${YOUTUBE_MAX_DESCRIPTION_BYTES} (UTF-8)`,
      });
    }
    if (/[<>]/.test(post.content)) {
      problems.push({ field: 'content', message: 'YouTube refuses < and > in a description' });
    }
    const { options, problems: optionProblems } = readYouTubeOptions(optionsOf(post));
    problems.push(...optionProblems);
    if (options?.short && videos.length === 1) problems.push(...shortProblems(videos[0]));
    return problems;
  }

  /**
   * Resumable upload (docs/adr/0039): the session URI is checkpointed before the first byte, so a
   * retry (even after a crash) asks the session how far it got and resumes, and a session that
   * completed gives back its video: one video per publication. Then the thumbnail, then one read of
   * the processing status: still processing, the worker is released (ProcessingPendingError) and the
   * publisher's delayed job calls again with the checkpoint, which only reads the status.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseYouTubeCredentials(input.credentials);
    if (!creds.channelId) throw new CredentialsRevokedError('The YouTube channel has no channel id: connect it again');
    const { options, problems } = readYouTubeOptions(optionsOf(input));
    if (!options)
      throw new ContentRejectedError(`YouTube options: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
    const video = input.media.find(isVideo);
    if (!video) throw new MediaRejectedError('A YouTube post needs one video');
    const thumbnail = input.media.find(isImage) ?? null;
    const api = new YouTubeApi(this.http, creds, this.quota);
    let state: YouTubeCheckpoint = { ...((input.checkpoint ?? {}) as YouTubeCheckpoint) };
    const save = async (next: YouTubeCheckpoint) => {
      state = next;
      await input.saveCheckpoint({ ...next });
    };

    let videoId = state.videoId;
    if (!videoId) {
      videoId = await this.upload(api, input, video, options, thumbnail !== null, state, save);
      await save({ ...state, videoId });
    }
    if (thumbnail && !state.thumbnailDone) {
      await this.setThumbnail(api, videoId, thumbnail);
      await save({ ...state, thumbnailDone: true });
    }
    await this.checkProcessed(api, videoId);
    return { platformPostId: videoId, url: watchUrl(videoId, options.short) };
  }

  /**
   * A first comment: commentThreads.insert (a top-level comment by the channel on its own video, 50
   * quota units, scope youtube.force-ssl). YouTube takes no idempotency key: a retry first looks among
   * the video's newest comment threads for the channel's own with this text (1 unit).
   */
  async comment(input: CommentInput): Promise<PublishResult> {
    const creds = parseYouTubeCredentials(input.credentials);
    if (!creds.channelId) throw new CredentialsRevokedError('The YouTube channel has no channel id: connect it again');
    const api = new YouTubeApi(this.http, creds, this.quota);
    const videoId = input.post.platformPostId;
    const commentUrl = (id: string) =>
      `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}&lc=${encodeURIComponent(id)}`;
    if (input.attempt > 1) {
      const res = await api.call(
        {
          method: 'GET',
          path: `/youtube/v3/commentThreads?part=snippet&videoId=${encodeURIComponent(videoId)}&order=time&maxResults=100&textFormat=plainText`,
        },
        'content',
        YOUTUBE_COSTS.list,
      );
      const wanted = comparableText(input.content);
      for (const item of asArray(asObject(res.data)?.items) ?? []) {
        const thread = asObject(item);
        const top = asObject(asObject(asObject(thread?.snippet)?.topLevelComment)?.snippet);
        const author = asString(asObject(top?.authorChannelId)?.value);
        const text = asString(top?.textOriginal) ?? asString(top?.textDisplay) ?? '';
        const id = asString(thread?.id);
        if (id && author === creds.channelId && comparableText(text) === wanted) {
          return { platformPostId: id, url: commentUrl(id) };
        }
      }
    }
    this.quota.checkUnits(YOUTUBE_COSTS.comment);
    const res = await api.call(
      {
        method: 'POST',
        path: '/youtube/v3/commentThreads?part=snippet',
        json: {
          snippet: {
            channelId: creds.channelId,
            videoId,
            topLevelComment: { snippet: { textOriginal: input.content } },
          },
        },
      },
      'content',
      YOUTUBE_COSTS.comment,
    );
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError('YouTube accepted the comment but returned no id', res.status);
    return { platformPostId: id, url: commentUrl(id) };
  }

  /** views, likes and comments (videos.list part=statistics); YouTube has no reposts or quotes. */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new YouTubeApi(this.http, parseYouTubeCredentials(credentials), this.quota);
    const res = await api.call(
      { method: 'GET', path: `/youtube/v3/videos?part=statistics&id=${encodeURIComponent(ref.platformPostId)}` },
      'content',
      YOUTUBE_COSTS.list,
    );
    const item = asObject(asArray(asObject(res.data)?.items)?.[0]);
    if (!item) throw new ContentRejectedError(`YouTube has no video ${ref.platformPostId} (deleted or private)`, 404);
    const stats = asObject(item.statistics) ?? {};
    const n = (k: string): number | null => {
      const v = stats[k];
      const num = typeof v === 'string' ? Number(v) : asNumber(v);
      return num === undefined || Number.isNaN(num) ? null : num;
    };
    return {
      metrics: {
        likes: n('likeCount'),
        reposts: null,
        replies: n('commentCount'),
        quotes: null,
        impressions: n('viewCount'),
        raw: { ...stats },
      },
    };
  }

  /** Returns the video id once the session holds every byte. */
  private async upload(
    api: YouTubeApi,
    input: PublishInput,
    video: PublishMedia,
    options: YouTubeOptions,
    withThumbnail: boolean,
    state: YouTubeCheckpoint,
    save: (next: YouTubeCheckpoint) => Promise<void>,
  ): Promise<string> {
    let session = state.session ?? null;
    let offset = 0;
    if (session) {
      const status = await this.sessionStatus(api, session, video.size);
      if (status.videoId) return status.videoId;
      if (status.gone)
        session = null; // expired before completing: no video was created
      else offset = status.offset;
    }
    if (!session) {
      session = await this.initiate(api, input, video, options, withThumbnail);
      await save({ session });
    }
    let interruptions = 0;
    for (;;) {
      try {
        const done = await this.sendFrom(api, session, video, offset, (acked) => save({ session, offset: acked }));
        if (done.videoId) return done.videoId;
        // The session kept less than was sent: count it as an interruption and resume.
        if (++interruptions > MAX_INTERRUPTIONS) {
          throw new TransientProviderError('YouTube kept dropping parts of the upload; it resumes at the next attempt');
        }
        offset = done.offset;
      } catch (err) {
        if (!(err instanceof ProviderError) || !err.transient || ++interruptions > MAX_INTERRUPTIONS) throw err;
        // An interrupted chunk: ask the session how many bytes it holds, and go on from there.
        const status = await this.sessionStatus(api, session, video.size);
        if (status.videoId) return status.videoId;
        if (status.gone) throw new TransientProviderError('The YouTube upload session expired; the upload starts over');
        offset = status.offset;
      }
    }
  }

  /** videos.insert, resumable: the metadata, the size and type; returns the session URI. */
  private async initiate(
    api: YouTubeApi,
    input: PublishInput,
    video: PublishMedia,
    options: YouTubeOptions,
    withThumbnail: boolean,
  ): Promise<string> {
    this.quota.checkUpload(withThumbnail);
    const snippet: Record<string, unknown> = {
      title: options.title ?? defaultTitle(input.content),
      description: input.content,
    };
    if (options.tags.length) snippet.tags = options.tags;
    if (options.categoryId) snippet.categoryId = options.categoryId;
    const status: Record<string, unknown> = {
      privacyStatus: options.publishAt ? 'private' : options.privacy,
      selfDeclaredMadeForKids: options.madeForKids,
    };
    if (options.publishAt) status.publishAt = options.publishAt;
    const res = await api.send({
      method: 'POST',
      path: `/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&notifySubscribers=${options.notifySubscribers}`,
      json: { snippet, status },
      headers: {
        'x-upload-content-length': String(video.size),
        'x-upload-content-type': video.mimeType,
      },
    });
    this.quota.upload();
    if (res.status < 200 || res.status >= 300) throw mapYouTubeFailure(res, 'content', this.quota);
    const location = res.headers.location;
    const uri = Array.isArray(location) ? location[0] : location;
    if (!uri) throw new TransientProviderError('YouTube opened no upload session (no Location)', res.status);
    return uri;
  }

  /** Where a session stands: `PUT` with `Content-Range: bytes *\/total` and no body. */
  private async sessionStatus(
    api: YouTubeApi,
    session: string,
    total: number,
  ): Promise<{ offset: number; videoId?: string; gone?: boolean }> {
    const res = await api.session(
      session,
      { 'content-range': `bytes */${total}`, 'content-length': '0' },
      undefined,
      30_000,
    );
    if (res.status === 308) return { offset: nextOffset(res.headers) };
    if (res.status === 200 || res.status === 201) return { offset: total, videoId: this.videoIdOf(res) };
    if (res.status === 404 || res.status === 410) return { offset: 0, gone: true };
    throw mapYouTubeFailure(res, 'media', api.quota);
  }

  /** Sends the bytes from `offset` in chunks; returns the video id when complete. */
  private async sendFrom(
    api: YouTubeApi,
    session: string,
    video: PublishMedia,
    offset: number,
    acknowledged: (offset: number) => Promise<void>,
  ): Promise<{ offset: number; videoId?: string }> {
    const chunkBytes = this.settings.chunkBytes;
    let position = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let start = offset;
    const flush = async (last: boolean): Promise<{ offset: number; videoId?: string } | null> => {
      const body = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      const end = start + body.length - 1;
      const res = await api.session(
        session,
        {
          'content-type': video.mimeType,
          'content-length': String(body.length),
          'content-range': `bytes ${start}-${end}/${video.size}`,
        },
        body,
        120_000,
      );
      if (res.status === 200 || res.status === 201) return { offset: video.size, videoId: this.videoIdOf(res) };
      if (res.status === 308) {
        const next = nextOffset(res.headers);
        // The session kept less than we sent: resume from what it holds.
        if (next !== end + 1) return { offset: next };
        start = next;
        // Saving also extends the publication's claim while a long upload goes on.
        await acknowledged(next);
        return last ? { offset: next } : null;
      }
      throw mapYouTubeFailure(res, 'media', api.quota);
    };
    for await (const chunk of exactSizeChunks(video)) {
      let buf = chunk;
      if (position + buf.length <= offset) {
        position += buf.length;
        continue;
      }
      if (position < offset) buf = buf.subarray(offset - position);
      position += chunk.length;
      while (buf.length > 0) {
        const take = Math.min(buf.length, chunkBytes - pendingBytes);
        pending.push(buf.subarray(0, take));
        pendingBytes += take;
        buf = buf.subarray(take);
        if (pendingBytes === chunkBytes && start + pendingBytes < video.size) {
          const result = await flush(false);
          if (result) return result;
        }
      }
    }
    const result = await flush(true);
    return result ?? { offset: start };
  }

  private videoIdOf(res: { data: unknown; status: number }): string {
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError('YouTube completed the upload but returned no video id', res.status);
    return id;
  }

  /**
   * thumbnails.set with the image's bytes. A refusal (the channel may not set custom thumbnails
   * until it is verified) leaves the video published without it; an outage is retried.
   */
  private async setThumbnail(api: YouTubeApi, videoId: string, image: PublishMedia): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of exactSizeChunks(image)) chunks.push(chunk);
    const res = await api.send({
      method: 'POST',
      path: `/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`,
      body: Buffer.concat(chunks),
      contentType: image.mimeType,
    });
    this.quota.spend(YOUTUBE_COSTS.thumbnail);
    if (res.status >= 200 && res.status < 300) return;
    const failure = mapYouTubeFailure(res, 'media', this.quota);
    if (failure.transient || failure instanceof CredentialsRevokedError) throw failure;
  }

  /**
   * One read of videos.list (status, processingDetails): processed, the publication is done; failed
   * or rejected, VideoProcessingFailedError with YouTube's reason (never uploaded again); still
   * processing, ProcessingPendingError: the publisher polls again after YOUTUBE_PROCESSING_POLL_MS
   * (1 quota unit a read) within VIDEO_PROCESSING_MAX_WAIT_SECONDS, the worker released meanwhile.
   */
  private async checkProcessed(api: YouTubeApi, videoId: string): Promise<void> {
    const res = await api.call(
      { method: 'GET', path: `/youtube/v3/videos?part=status,processingDetails&id=${encodeURIComponent(videoId)}` },
      'media',
      YOUTUBE_COSTS.list,
    );
    const item = asObject(asArray(asObject(res.data)?.items)?.[0]);
    if (!item) throw new VideoProcessingFailedError(`YouTube no longer lists the uploaded video ${videoId}`);
    const status = asObject(item.status);
    const upload = asString(status?.uploadStatus);
    if (upload === 'processed') return;
    if (upload === 'failed' || upload === 'rejected' || upload === 'deleted') {
      const reason = asString(status?.failureReason) ?? asString(status?.rejectionReason) ?? upload;
      throw new VideoProcessingFailedError(
        `YouTube ${upload === 'failed' ? 'could not process' : 'rejected'} the video ${videoId}: ${reason}`,
      );
    }
    const details = asObject(item.processingDetails);
    const left = asNumber(asObject(details?.processingProgress)?.timeLeftMs);
    const hint = left !== undefined && left > 0 ? Math.min(left, this.settings.processingPollMs * 6) : 0;
    throw new ProcessingPendingError(
      `YouTube is processing video ${videoId} (${upload ?? 'no status'}); its status is read again later (it is not uploaded again)`,
      Math.max(this.settings.processingPollMs, hint),
    );
  }
}

/** A Short is vertical or square and at most three minutes (when the video's size and duration are known). */
function shortProblems(video: MediaDescriptor): Problem[] {
  const problems: Problem[] = [];
  if (video.width && video.height && video.width > video.height) {
    problems.push({
      field: 'mediaIds',
      message: `A YouTube Short is vertical or square; media ${video.id} is ${video.width}x${video.height}`,
    });
  }
  const duration = durationMsOf(video);
  if (duration !== null && duration > YOUTUBE_SHORTS_MAX_SECONDS * 1000) {
    problems.push({
      field: 'mediaIds',
      message: `A YouTube Short lasts at most ${YOUTUBE_SHORTS_MAX_SECONDS} seconds; media ${video.id} lasts ${Math.round(duration / 1000)}`,
    });
  }
  return problems;
}

/**
 * Upload to the channel, read channels and video status/statistics, and post a first comment
 * (commentThreads.insert takes only youtube.force-ssl).
 */
const YOUTUBE_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

/** The YouTube plugin: Google OAuth 2.0 with offline access, registered in provider.list.ts. */
export const youtubePlugin = defineProvider({
  id: 'youtube',
  apiVersion: {
    pinned: 'v3',
    source: 'YouTube Data API v3 reference, checked 2026-11-29; no retirement date stated',
  },
  displayName: 'YouTube',
  connectKind: 'oauth',
  credentials: YouTubeCredentialsDto,
  defaultLimits: YOUTUBE_LIMITS,
  capabilities: { altText: false },
  optionsSchema: YOUTUBE_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: {
      auth: 'https://accounts.google.com',
      api: 'https://www.googleapis.com',
      token: 'https://oauth2.googleapis.com',
    },
    authorizeUrl: (hosts) => `${hosts.auth}/o/oauth2/v2/auth`,
    tokenUrl: (hosts) => `${hosts.token ?? hosts.api}/token`,
    scopes: YOUTUBE_SCOPES,
    clientAuthentication: 'body',
    // A refresh token (offline), asked again on every consent so a reconnect gets one too.
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  },
  settings: {
    ...oauthAppSettings('YOUTUBE', {
      clientId:
        'Google Cloud OAuth client (web application) with the YouTube Data API v3 enabled (callback {PUBLIC_BASE_URL}/api/oauth/youtube/callback); YouTube is listed disabled without both',
      authBaseUrl: 'override of https://accounts.google.com (consent page), e.g. a test server',
      apiBaseUrl: 'override of https://www.googleapis.com (Data API and uploads)',
      tokenBaseUrl: 'override of https://oauth2.googleapis.com (token endpoint)',
    }),
    chunkBytes: setting.int('YOUTUBE_UPLOAD_CHUNK_BYTES', {
      default: 8 * 1024 * 1024,
      min: YOUTUBE_CHUNK_UNIT,
      description: 'size of each resumable upload request; a multiple of 262144 (256 KiB)',
    }),
    processingPollMs: setting.int('YOUTUBE_PROCESSING_POLL_MS', {
      default: 10_000,
      min: 10,
      description:
        'interval between two processing status reads (videos.list, 1 quota unit each), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
    dailyUploads: setting.int('YOUTUBE_DAILY_UPLOADS', {
      default: 100,
      min: 0,
      description: "the Google Cloud project's daily videos.insert quota (default allocation 100)",
    }),
    dailyUnits: setting.int('YOUTUBE_DAILY_QUOTA_UNITS', {
      default: 10_000,
      min: 0,
      description: "the project's daily quota units for other calls (default allocation 10000)",
    }),
  },
  create: ({ http, settings }) =>
    withRevocation(
      new YouTubeProvider(http, {
        chunkBytes: Math.max(
          YOUTUBE_CHUNK_UNIT,
          Math.floor(settings.chunkBytes / YOUTUBE_CHUNK_UNIT) * YOUTUBE_CHUNK_UNIT,
        ),
        processingPollMs: settings.processingPollMs,
        dailyUploads: settings.dailyUploads,
        dailyUnits: settings.dailyUnits,
      }),
      async (credentials) => {
        // Google revokes the whole grant from either token: the refresh token when there is one.
        const token = storedToken(credentials, 'refreshToken') ?? storedToken(credentials, 'accessToken');
        if (!token) return;
        const url = `${(oauthClientSettings(settings).tokenBaseUrl ?? 'https://oauth2.googleapis.com').replace(/\/+$/, '')}/revoke`;
        await revokeAt(http, 'YouTube', { method: 'POST', url, form: { token } });
      },
    ),
});
