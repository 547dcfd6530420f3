import type { OutboundHttp } from '../../common/http/outbound-http';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import {
  GRAPH_DUPLICATE_CODE,
  GraphApi,
  META_GRAPH_SETTINGS,
  META_GRAPH_VERSION,
  graphVersionOf,
  graphError,
  graphErrorText,
  insightValues,
  mapGraphFailure,
} from '../meta/graph-api.client';
import {
  META_VIDEO_SETTINGS,
  altTextOf,
  metaVideoRequirements,
  publicImageUrl,
  publicVideoUrl,
} from '../meta/meta-media';
import { metaTransientTokenError } from '../meta/meta-oauth';
import { LOOKUP_SLACK_MS, comparableText, copyLimits, recentWithText } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings } from '../provider-settings';
import { sendWithBearer } from '../provider-http.util';
import { asArray, asNumber, asObject, asString, asStringArray } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  ProcessingPendingError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import { optionsOf } from '../target-options.util';
import type {
  CommentInput,
  ChannelLimits,
  ConnectedAccount,
  MediaDescriptor,
  PublishMedia,
  MetricsResult,
  OAuthSpec,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { FacebookCredentials, FacebookCredentialsDto, parseFacebookCredentials } from './facebook.credentials';
import {
  FACEBOOK_LIMITS,
  FACEBOOK_MAX_PAGES,
  FACEBOOK_POSTING_TASK,
  FACEBOOK_REEL,
  FACEBOOK_VIDEO_LIMITS,
} from './facebook.limits';
import { FACEBOOK_OPTIONS_SCHEMA, FacebookOptions } from './facebook.options';
import { graphVersionSunset } from '../api-version';

const NAME = 'Facebook';
/** How far before the publication's start the lookup of a lost answer reaches. */

const firstUrl = (text: string) => /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]]/.exec(text)?.[0];

/** Default pause between two reads of a video being processed. */
const DEFAULT_VIDEO_POLL_MS = 15_000;
/** What Facebook downloads for a Page video, and for a Reel (MP4/MOV, H.264 or HEVC with AAC, index first). */
const PAGE_VIDEO_REQUIREMENTS = metaVideoRequirements('Facebook', FACEBOOK_VIDEO_LIMITS);
const REEL_REQUIREMENTS = metaVideoRequirements('Facebook Reels', {
  ...FACEBOOK_VIDEO_LIMITS,
  minDurationSeconds: FACEBOOK_REEL.minDurationSeconds,
  maxDurationSeconds: FACEBOOK_REEL.maxDurationSeconds,
  minFrameRate: FACEBOOK_REEL.minFrameRate,
  maxFrameRate: FACEBOOK_REEL.maxFrameRate,
});

/** Why a video is not a Reel by Facebook's Reel specifications (empty: it is one). */
export function reelMisfits(video: MediaDescriptor): string[] {
  const misfits: string[] = [];
  const seconds = (video.durationMs ?? 0) / 1000;
  if (seconds < FACEBOOK_REEL.minDurationSeconds || seconds > FACEBOOK_REEL.maxDurationSeconds) {
    misfits.push(
      `it is ${seconds} s long (Reels: ${FACEBOOK_REEL.minDurationSeconds} to ${FACEBOOK_REEL.maxDurationSeconds} s)`,
    );
  }
  const { width, height } = video;
  if (!width || !height || Math.abs(width / height - FACEBOOK_REEL.aspectRatio) > 0.01) {
    misfits.push(`it is ${width ?? '?'} x ${height ?? '?'} (Reels: 9:16)`);
  } else if (width < FACEBOOK_REEL.minWidth || height < FACEBOOK_REEL.minHeight) {
    misfits.push(`it is ${width} x ${height} (Reels: at least ${FACEBOOK_REEL.minWidth} x ${FACEBOOK_REEL.minHeight})`);
  }
  const fps = video.frameRate ?? null;
  if (fps !== null && (fps < FACEBOOK_REEL.minFrameRate - 0.01 || fps > FACEBOOK_REEL.maxFrameRate + 0.01)) {
    misfits.push(
      `it has ${fps} frames per second (Reels: ${FACEBOOK_REEL.minFrameRate} to ${FACEBOOK_REEL.maxFrameRate})`,
    );
  }
  return misfits;
}

/** How a video is published: the option, or a Reel when it fits the Reel specifications (docs/adr/0040). */
function videoFormatOf(video: MediaDescriptor, options: Partial<FacebookOptions>): 'reel' | 'video' {
  return options.videoFormat ?? (reelMisfits(video).length === 0 ? 'reel' : 'video');
}

/** A video's progress as `GET /{video-id}?fields=status` reports it. */
type VideoProgress =
  { state: 'ready' } | { state: 'processing' } | { state: 'failed'; reason: string } | { state: 'gone' };

/** The publish checkpoint of a video (a Reel or a Page video). */
interface FacebookVideoCheckpoint {
  /** The video id (Reels: from upload_phase=start; Page videos: from /videos). */
  video?: string;
  format?: 'reel' | 'video';
  /** Reels: where the bytes go (rupload), from the start answer. */
  uploadUrl?: string;
  /** Reels: the bytes were accepted. */
  uploaded?: boolean;
  /** Reels: upload_phase=finish with video_state=PUBLISHED was accepted. */
  finished?: boolean;
  /** Page videos: the create call went out (a retry looks for the video before sending it again). */
  sent?: boolean;
}

/** The publish checkpoint of a Page post (docs/adr/0023). */
interface FacebookCheckpoint {
  /** Unpublished photos uploaded for a multi-photo post. */
  photos?: string[];
  /** The create call went out: a retry looks for the post first. */
  sent?: boolean;
  post?: string;
  url?: string;
}

/**
 * Facebook Pages through the Graph API: one authorization lists the Pages the user may publish to
 * (`/me/accounts`, task CREATE_CONTENT); each chosen Page is a channel with its own Page access
 * token. Text and link posts go to `/{page}/feed`, one photo to `/{page}/photos` (Facebook downloads
 * it from our signed URL), several as unpublished photos attached to a feed post. A video is a Reel
 * (the Reels publishing flow: start, upload by `file_url`, finish with `video_state=PUBLISHED`) or a
 * Page video (`/{page}/videos`, published), then polled by the publisher's delayed jobs until
 * Facebook has processed it (docs/adr/0040).
 */
export class FacebookProvider implements SocialProvider {
  readonly id = 'facebook';

  constructor(
    private readonly http: OutboundHttp,
    /** META_GRAPH_VERSION. */
    private readonly graphVersion: string = META_GRAPH_VERSION,
    /** META_VIDEO_POLL_MS. */
    private readonly videoPollMs: number = DEFAULT_VIDEO_POLL_MS,
  ) {}

  /** The Page of Page credentials; with a user's token, the first Page they may publish to. */
  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseFacebookCredentials(credentials);
    if (!creds.pageId) return (await this.connectTargets(credentials))[0];
    const res = await this.read(this.api(creds), `/${creds.pageId}`, { fields: 'id,name,username,link,picture' });
    const page = asObject(res);
    const id = asString(page?.id);
    if (!page || !id) throw new InvalidCredentialsError('Facebook did not return the Page');
    return this.account(credentials, page, creds.accessToken);
  }

  /** The Pages the user may publish to, each with its Page access token. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const creds = parseFacebookCredentials(credentials);
    const api = this.api(creds);
    const pages: ConnectedAccount[] = [];
    let after: string | undefined;
    do {
      const data = asObject(
        await this.read(api, '/me/accounts', {
          fields: 'id,name,username,link,picture,access_token,tasks',
          limit: 100,
          after,
        }),
      );
      for (const item of asArray(data?.data) ?? []) {
        const page = asObject(item);
        const token = asString(page?.access_token);
        const tasks = asStringArray(page?.tasks) ?? [];
        if (page && token && tasks.includes(FACEBOOK_POSTING_TASK) && pages.length < FACEBOOK_MAX_PAGES) {
          pages.push(this.account(credentials, page, token));
        }
      }
      after = asString(asObject(asObject(data?.paging)?.cursors)?.after);
      if (!asString(asObject(data?.paging)?.next)) after = undefined;
    } while (after && pages.length < FACEBOOK_MAX_PAGES);
    if (pages.length === 0) {
      throw new InvalidCredentialsError(
        'This Facebook account manages no Page it may publish to (task CREATE_CONTENT)',
      );
    }
    return pages;
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return [...text].length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(NAME, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    const options = optionsOf(post) as Partial<FacebookOptions>;
    post.media.forEach((item, index) => {
      if (!isVideoMedia(item) || options.videoFormat !== 'reel') return;
      const misfits = reelMisfits(item);
      if (misfits.length > 0) {
        problems.push({
          field: `mediaIds[${index}]`,
          message: `Video ${item.id} cannot be a Facebook Reel: ${misfits.join('; ')}`,
        });
      }
    });
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text has ${length} characters; Facebook allows ${limits.maxCharacters}`,
      });
    }
    return problems;
  }

  /**
   * Publishes on the Page. Facebook has no idempotency key: the checkpoint records that the create
   * call went out, and only then does a retry look for the post on the Page before posting again
   * (docs/adr/0023). A duplicate refusal (#506) on such a retry triggers the lookup too.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseFacebookCredentials(input.credentials);
    const pageId = creds.pageId;
    if (!pageId) throw new CredentialsRevokedError('The Facebook channel names no Page: connect it again');
    const api = this.api(creds);
    if (input.media.length === 1 && isVideoMedia(input.media[0])) {
      return this.publishVideo(api, creds, pageId, input, input.media[0]);
    }
    const saved: FacebookCheckpoint = {
      photos: asStringArray(input.checkpoint?.photos),
      sent: input.checkpoint?.sent === true,
      post: asString(input.checkpoint?.post),
      url: asString(input.checkpoint?.url),
    };
    if (saved.post && saved.url) return { platformPostId: saved.post, url: saved.url };
    if (saved.sent) {
      const found = await this.findRecent(api, pageId, input);
      if (found) return this.done(input, found);
    }
    let res;
    if (input.media.length === 1) {
      const url = await publicImageUrl(input.media[0]);
      await input.saveCheckpoint({ sent: true });
      res = await api.send('POST', `/${pageId}/photos`, {
        url,
        caption: input.content || undefined,
        alt_text_custom: altTextOf(input.media[0]),
        published: true,
      });
    } else if (input.media.length > 1) {
      const photos =
        saved.photos?.length === input.media.length ? saved.photos : await this.uploadPhotos(api, pageId, input);
      await input.saveCheckpoint({ photos, sent: true });
      res = await api.send('POST', `/${pageId}/feed`, {
        message: input.content || undefined,
        attached_media: JSON.stringify(photos.map((id) => ({ media_fbid: id }))),
      });
    } else {
      await input.saveCheckpoint({ sent: true });
      res = await api.send('POST', `/${pageId}/feed`, { message: input.content, link: firstUrl(input.content) });
    }
    const error = graphError(res.data);
    if (res.status >= 200 && res.status < 300 && !error) {
      const data = asObject(res.data);
      const postId = asString(data?.post_id) ?? asString(data?.id);
      if (!postId) throw new TransientProviderError('Facebook accepted the post but returned no id', res.status);
      return this.done(input, { platformPostId: postId, url: await this.permalink(api, postId) });
    }
    if (error?.code === GRAPH_DUPLICATE_CODE) {
      if (saved.sent) {
        const found = await this.findRecent(api, pageId, input);
        if (found) return this.done(input, found);
      }
      throw new ContentRejectedError(
        `Facebook refused the post as a duplicate: ${graphErrorText(error, res.status)}`,
        res.status,
      );
    }
    throw mapGraphFailure(NAME, res.status, res.headers, res.data, input.media.length ? 'media' : 'content');
  }

  /**
   * A first comment: `POST /{post-id}/comments` with `message`, as the Page. Facebook takes no
   * idempotency key: a retry first looks among the post's comments for the Page's own with this text.
   */
  async comment(input: CommentInput): Promise<PublishResult> {
    const creds = parseFacebookCredentials(input.credentials);
    if (!creds.pageId) throw new CredentialsRevokedError('The Facebook channel names no Page: connect it again');
    const api = this.api(creds);
    const postId = encodeURIComponent(input.post.platformPostId);
    if (input.attempt > 1) {
      const res = await api.call('GET', `/${postId}/comments`, { fields: 'id,message,from', limit: 100 }, 'content');
      const wanted = comparableText(input.content);
      for (const item of asArray(asObject(res.data)?.data) ?? []) {
        const c = asObject(item);
        const id = asString(c?.id);
        const from = asString(asObject(c?.from)?.id);
        if (id && from === creds.pageId && comparableText(asString(c?.message) ?? '') === wanted) {
          return { platformPostId: id, url: `https://www.facebook.com/${id}` };
        }
      }
    }
    const res = await api.call('POST', `/${postId}/comments`, { message: input.content }, 'content');
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError('Facebook accepted the comment but returned no id', res.status);
    return { platformPostId: id, url: `https://www.facebook.com/${id}` };
  }

  /**
   * Reactions, comments and shares from the post, and its views (`post_media_view`) from the post
   * insights when Facebook gives them (null otherwise).
   */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = this.api(parseFacebookCredentials(credentials));
    const id = encodeURIComponent(ref.platformPostId);
    const res = await api.call(
      'GET',
      `/${id}`,
      { fields: 'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares' },
      'content',
    );
    const post = asObject(res.data);
    const total = (edge: string) => asNumber(asObject(asObject(post?.[edge])?.summary)?.total_count) ?? null;
    const likes = total('reactions');
    const replies = total('comments');
    // `shares` is absent until the post is shared.
    const reposts = asNumber(asObject(post?.shares)?.count) ?? 0;
    let impressions: number | null = null;
    const insights = await api.send('GET', `/${id}/insights`, { metric: 'post_media_view' });
    if (insights.status === 200 && !graphError(insights.data)) {
      impressions = insightValues(insights.data).post_media_view ?? null;
    } else {
      const failure = mapGraphFailure(NAME, insights.status, insights.headers, insights.data, 'content');
      if (failure.transient || failure instanceof CredentialsRevokedError) throw failure;
    }
    return {
      metrics: {
        likes,
        reposts,
        replies,
        quotes: null,
        impressions,
        raw: { reactions: likes, comments: replies, shares: reposts, post_media_view: impressions },
      },
    };
  }

  private api(creds: FacebookCredentials): GraphApi {
    return new GraphApi(this.http, {
      name: NAME,
      baseUrl: creds.apiBaseUrl,
      version: this.graphVersion,
      accessToken: creds.accessToken,
    });
  }

  /** A GET whose refusal means the token is no good (connecting): InvalidCredentialsError, unless transient. */
  private async read(api: GraphApi, path: string, params: Record<string, string | number | undefined>) {
    let res;
    try {
      res = await api.send('GET', path, params);
    } catch (err) {
      throw new InvalidCredentialsError(`Facebook could not be reached: ${(err as Error).message}`);
    }
    const error = graphError(res.data);
    if (res.status === 200 && !error) return res.data;
    const failure = mapGraphFailure(NAME, res.status, res.headers, res.data, 'content');
    if (failure.transient) throw failure;
    throw new InvalidCredentialsError(`Facebook refused the access token: ${graphErrorText(error, res.status)}`);
  }

  /**
   * A video, as a Reel or a Page video (the option, else a Reel when it fits the Reel specifications).
   * Each step is saved in the checkpoint before the next is sent, and the network's processing is
   * read once per attempt: while it runs the attempt ends with ProcessingPendingError (the publisher
   * polls again with a delayed job); an error fails the target (VideoProcessingFailedError). A retry
   * or a crash goes on from the checkpoint: one upload, one post.
   */
  private async publishVideo(
    api: GraphApi,
    creds: FacebookCredentials,
    pageId: string,
    input: PublishInput,
    media: PublishMedia,
  ): Promise<PublishResult> {
    const raw = input.checkpoint ?? {};
    if (asString(raw.post) && asString(raw.url))
      return { platformPostId: asString(raw.post)!, url: asString(raw.url)! };
    const saved: FacebookVideoCheckpoint = {
      video: asString(raw.video),
      format: raw.format === 'reel' || raw.format === 'video' ? raw.format : undefined,
      uploadUrl: asString(raw.uploadUrl),
      uploaded: raw.uploaded === true,
      finished: raw.finished === true,
      sent: raw.sent === true,
    };
    const format = saved.format ?? videoFormatOf(media, optionsOf(input));
    const state: FacebookVideoCheckpoint = { ...saved, format };
    if (format === 'reel') {
      await this.sendReel(api, creds, pageId, input, media, state);
    } else if (!state.video) {
      await this.sendPageVideo(api, pageId, input, media, state);
    }
    const video = state.video!;
    const progress = await this.videoProgress(api, video, format);
    switch (progress.state) {
      case 'processing':
        throw new ProcessingPendingError(`Facebook is processing the video ${video}`, this.videoPollMs);
      case 'failed':
        throw new VideoProcessingFailedError(`Facebook could not process the video: ${progress.reason}`);
      case 'gone':
        // Deleted on Facebook before it was published: the next attempt starts over.
        await input.saveCheckpoint({});
        throw new TransientProviderError(`Facebook no longer has the video ${video}; sending it again`);
      case 'ready':
        break;
    }
    const url =
      format === 'reel' ? `https://www.facebook.com/reel/${video}` : await this.videoPermalink(api, pageId, video);
    return this.done(input, { platformPostId: video, url });
  }

  /** The Reels publishing flow, from where the checkpoint left it: start, upload (file_url), finish. */
  private async sendReel(
    api: GraphApi,
    creds: FacebookCredentials,
    pageId: string,
    input: PublishInput,
    media: PublishMedia,
    state: FacebookVideoCheckpoint,
  ): Promise<void> {
    if (!state.video || !state.uploadUrl) {
      // The enum as Meta's Graph spec of Page/video_reels declares it (START, FINISH), as its SDKs send it.
      const res = await api.call('POST', `/${pageId}/video_reels`, { upload_phase: 'START' }, 'media');
      const data = asObject(res.data);
      const video = asString(data?.video_id);
      const uploadUrl = asString(data?.upload_url);
      if (!video || !uploadUrl) {
        throw new TransientProviderError('Facebook started a Reel upload but returned no video id', res.status);
      }
      Object.assign(state, { video, uploadUrl, uploaded: false, finished: false });
      await input.saveCheckpoint({ ...state });
    }
    if (!state.uploaded) {
      // Facebook downloads the file itself from our signed URL (rupload with a file_url header).
      const fileUrl = await publicVideoUrl(media, REEL_REQUIREMENTS);
      const res = await sendWithBearer(this.http, NAME, state.uploadUrl!, creds.accessToken, {
        method: 'POST',
        path: '',
        headers: { authorization: `OAuth ${creds.accessToken}`, file_url: fileUrl },
      });
      if (res.status < 200 || res.status >= 300 || graphError(res.data) || asObject(res.data)?.success !== true) {
        throw mapGraphFailure(NAME, res.status, res.headers, res.data, 'media');
      }
      state.uploaded = true;
      await input.saveCheckpoint({ ...state });
    }
    if (!state.finished) {
      // video_state=PUBLISHED: a Reel finished without it stays a draft.
      await api.call(
        'POST',
        `/${pageId}/video_reels`,
        {
          upload_phase: 'FINISH',
          video_id: state.video,
          video_state: 'PUBLISHED',
          description: input.content || undefined,
        },
        'content',
      );
      state.finished = true;
      await input.saveCheckpoint({ ...state });
    }
  }

  /**
   * A Page video: `/{page}/videos` with `file_url` and `published=true`. The checkpoint records that
   * the call went out, and only then does a retry look for the video on the Page before sending it
   * again.
   */
  private async sendPageVideo(
    api: GraphApi,
    pageId: string,
    input: PublishInput,
    media: PublishMedia,
    state: FacebookVideoCheckpoint,
  ): Promise<void> {
    if (state.sent) {
      const found = await this.findRecentVideo(api, pageId, input);
      if (found) {
        state.video = found;
        await input.saveCheckpoint({ ...state });
        return;
      }
    }
    const fileUrl = await publicVideoUrl(media, PAGE_VIDEO_REQUIREMENTS);
    await input.saveCheckpoint({ format: state.format, sent: true });
    const res = await api.call(
      'POST',
      `/${pageId}/videos`,
      { file_url: fileUrl, description: input.content || undefined, published: true },
      'media',
    );
    const video = asString(asObject(res.data)?.id);
    if (!video) throw new TransientProviderError('Facebook accepted the video but returned no id', res.status);
    Object.assign(state, { video, sent: true });
    await input.saveCheckpoint({ ...state });
  }

  /**
   * A video's progress: `status.video_status` (`ready`, `processing`, `upload_complete`, `error`,
   * ...) and its phases. A Reel is ready once its publishing phase is complete; an error in any phase
   * is a failure.
   */
  private async videoProgress(api: GraphApi, video: string, format: 'reel' | 'video'): Promise<VideoProgress> {
    const res = await api.send('GET', `/${encodeURIComponent(video)}`, { fields: 'status' });
    const error = graphError(res.data);
    if (res.status === 404 || (error?.code === 100 && res.status < 500)) return { state: 'gone' };
    if (res.status !== 200 || error) throw mapGraphFailure(NAME, res.status, res.headers, res.data, 'media');
    const status = asObject(asObject(res.data)?.status);
    const phase = (name: string) => asObject(status?.[name]);
    for (const name of ['uploading_phase', 'processing_phase', 'publishing_phase']) {
      if (asString(phase(name)?.status) === 'error') {
        const first = asObject(asArray(phase(name)?.errors)?.[0]);
        const reason = asString(first?.message) ?? `${name.replace('_', ' ')} failed`;
        const code = asNumber(first?.code);
        return { state: 'failed', reason: code !== undefined ? `${reason} (${code})` : reason };
      }
    }
    const videoStatus = asString(status?.video_status);
    if (videoStatus === 'error') return { state: 'failed', reason: 'video_status error' };
    const published = asString(phase('publishing_phase')?.status) === 'complete';
    if (format === 'reel') return published ? { state: 'ready' } : { state: 'processing' };
    return videoStatus === 'ready' ? { state: 'ready' } : { state: 'processing' };
  }

  private async videoPermalink(api: GraphApi, pageId: string, video: string): Promise<string> {
    const fallback = `https://www.facebook.com/${pageId}/videos/${video}`;
    try {
      const res = await api.send('GET', `/${encodeURIComponent(video)}`, { fields: 'permalink_url' });
      const link = res.status === 200 ? asString(asObject(res.data)?.permalink_url) : undefined;
      return link ? new URL(link, 'https://www.facebook.com').toString() : fallback;
    } catch {
      return fallback;
    }
  }

  /** The Page's video with this description created since the publication started, if any. */
  private async findRecentVideo(api: GraphApi, pageId: string, input: PublishInput): Promise<string | null> {
    const res = await api.call(
      'GET',
      `/${pageId}/videos`,
      { fields: 'id,description,created_time', limit: 25 },
      'content',
    );
    const fields = { text: 'description', time: 'created_time' };
    return recentWithText(asObject(res.data)?.data, input.content, input.createdAt, fields)?.id ?? null;
  }

  /** The photos of a multi-photo post, uploaded unpublished (attached to the feed post after). */
  private async uploadPhotos(api: GraphApi, pageId: string, input: PublishInput): Promise<string[]> {
    const photos: string[] = [];
    for (const media of input.media) {
      const res = await api.call(
        'POST',
        `/${pageId}/photos`,
        { url: await publicImageUrl(media), alt_text_custom: altTextOf(media), published: false },
        'media',
      );
      const id = asString(asObject(res.data)?.id);
      if (!id) throw new TransientProviderError('Facebook stored a photo but returned no id', res.status);
      photos.push(id);
    }
    await input.saveCheckpoint({ photos });
    return photos;
  }

  /** Records the outcome in the checkpoint (a retry returns it), then returns it. */
  private async done(input: PublishInput, result: PublishResult): Promise<PublishResult> {
    try {
      await input.saveCheckpoint({ post: result.platformPostId, url: result.url });
    } catch {
      // Published: the record of the outcome follows; a retry would look the post up.
    }
    return result;
  }

  private async permalink(api: GraphApi, postId: string): Promise<string> {
    const fallback = `https://www.facebook.com/${postId}`;
    try {
      const res = await api.send('GET', `/${encodeURIComponent(postId)}`, { fields: 'permalink_url' });
      return (res.status === 200 && asString(asObject(res.data)?.permalink_url)) || fallback;
    } catch {
      return fallback;
    }
  }

  /** The Page's post with this text published since the publication started, if any. */
  private async findRecent(api: GraphApi, pageId: string, input: PublishInput): Promise<PublishResult | null> {
    const since = Math.floor((input.createdAt.getTime() - LOOKUP_SLACK_MS) / 1000);
    const res = await api.call(
      'GET',
      `/${pageId}/published_posts`,
      { fields: 'id,message,created_time,permalink_url', since, limit: 25 },
      'content',
    );
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.data) ?? []) {
      const post = asObject(item);
      const id = asString(post?.id);
      if (id && comparableText(asString(post?.message) ?? '') === wanted) {
        return { platformPostId: id, url: asString(post?.permalink_url) ?? `https://www.facebook.com/${id}` };
      }
    }
    return null;
  }

  private account(raw: unknown, page: Record<string, unknown>, pageToken: string): ConnectedAccount {
    const creds = parseFacebookCredentials(raw);
    const stored = asObject(raw) ?? {};
    const id = asString(page.id)!;
    const name = asString(page.name) || `Page ${id}`;
    const username = asString(page.username);
    return {
      externalId: id,
      kind: 'organization',
      name,
      handle: username ? `@${username}` : name,
      avatarUrl: asString(asObject(asObject(page.picture)?.data)?.url) ?? null,
      profileUrl: asString(page.link) ?? `https://www.facebook.com/${id}`,
      limits: copyLimits(FACEBOOK_LIMITS),
      credentials: {
        accessToken: pageToken,
        refreshToken: null,
        // Page tokens read with a long-lived user token do not expire.
        expiresAt: null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        pageId: id,
      },
    };
  }
}

/**
 * Facebook Login: the code gives a short-lived user token; `fb_exchange_token` swaps it for a
 * long-lived one, from which the Page tokens read do not expire (docs/adr/0022).
 */
const exchangeForLongLivedUserToken: NonNullable<OAuthSpec['afterCodeExchange']> = async (tokens, context) => {
  const long = await context.token({
    method: 'GET',
    url: `${context.hosts.api}/${graphVersionOf(context.hosts)}/oauth/access_token`,
    fields: {
      grant_type: 'fb_exchange_token',
      client_id: context.clientId,
      client_secret: context.clientSecret,
      fb_exchange_token: tokens.accessToken,
    },
  });
  return { ...long, refreshToken: null, scope: long.scope ?? tokens.scope };
};

/** The Facebook Pages plugin, registered in provider.list.ts. */
export const facebookPlugin = defineProvider({
  id: 'facebook',
  apiVersion: {
    pinned: META_GRAPH_VERSION,
    setting: 'graphVersion',
    sunset: graphVersionSunset,
    source: 'Graph API changelog, Available Graph API Versions (developers.facebook.com), checked 2026-11-29',
  },
  displayName: 'Facebook',
  connectKind: 'oauth',
  credentials: FacebookCredentialsDto,
  defaultLimits: FACEBOOK_LIMITS,
  optionsSchema: FACEBOOK_OPTIONS_SCHEMA,
  capabilities: { altText: true },
  oauth: {
    defaultHosts: { auth: 'https://www.facebook.com', api: 'https://graph.facebook.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/${graphVersionOf(hosts)}/dialog/oauth`,
    tokenUrl: (hosts) => `${hosts.api}/${graphVersionOf(hosts)}/oauth/access_token`,
    tokenEndpointMethod: 'GET',
    scopes: ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement', 'read_insights'],
    scopeSeparator: ',',
    clientAuthentication: 'body',
    afterCodeExchange: exchangeForLongLivedUserToken,
    transientTokenError: metaTransientTokenError,
  },
  settings: {
    ...oauthAppSettings('FACEBOOK', {
      clientId:
        'Facebook app with Facebook Login and the Pages permissions (callback {PUBLIC_BASE_URL}/api/oauth/facebook/callback)',
      authBaseUrl: 'override of https://www.facebook.com (login dialog)',
      apiBaseUrl: 'override of https://graph.facebook.com (Graph API and token endpoint)',
    }),
    ...META_GRAPH_SETTINGS,
    ...META_VIDEO_SETTINGS,
  },
  create: ({ http, settings }) => new FacebookProvider(http, settings.graphVersion, settings.videoPollMs),
});
