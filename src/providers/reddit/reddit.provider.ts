import { Readable } from 'node:stream';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { multipartForm } from '../multipart-form.util';
import { LOOKUP_SLACK_MS, comparableText, copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { mapHttpFailure, mapThrown } from '../provider-http.util';
import { asArray, asNumber, asObject, asString, at } from '../provider-json.util';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import {
  ContentRejectedError,
  InvalidCredentialsError,
  MediaRejectedError,
  ProcessingPendingError,
  TransientProviderError,
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
import { DEFAULT_VIDEO_POLL_MS, videoRequirements, videoToSend } from '../video-publish.util';
import {
  REDDIT_NAME,
  RedditApi,
  apiErrorsFailure,
  mapRedditFailure,
  redditApiErrors,
  redditErrorText,
} from './reddit-api.client';
import { REDDIT_USERNAME, RedditCredentialsDto, parseRedditCredentials } from './reddit.credentials';
import { REDDIT_LIMITS, REDDIT_MAX_COMMENT, REDDIT_VIDEO_LIMITS } from './reddit.limits';
import { REDDIT_OPTIONS_SCHEMA, type RedditOptions } from './reddit.options';
import { appCredentials, revokeAt, storedToken, withRevocation } from '../token-revocation.util';

/** What Reddit takes as a video file: MP4 or MOV, index first (converted once when not). */
const REDDIT_VIDEO = videoRequirements(REDDIT_NAME, REDDIT_VIDEO_LIMITS, { faststart: true });

/** The User-Agent Reddit asks of API clients: `<platform>:<app id>:<version> (by /u/<username>)`. */
export const DEFAULT_REDDIT_USER_AGENT = 'server:social-publishing-service:1.0 (self-hosted)';

/** Submissions and comments of the account read when looking for what a lost answer created. */
const LOOKUP_COUNT = 25;

/** What a submission is, by Reddit's `kind` (a gallery has its own endpoint). */
type SubmissionKind = 'self' | 'link' | 'image' | 'video' | 'gallery';

/** The subreddit's rules as `/r/{sr}/about` and `/api/v1/{sr}/post_requirements` give them. */
interface SubredditRules {
  /** `any`, `link` (no text posts) or `self` (text posts only). */
  submissionType: string;
  allowImages: boolean;
  allowVideos: boolean;
  allowGalleries: boolean;
  flairRequired: boolean;
  titleMin: number | null;
  titleMax: number | null;
  /** `required`, `notAllowed` or `none`. */
  bodyPolicy: string;
  bodyMax: number | null;
}

const asBoolean = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

const www = (permalink: string | undefined, fallback: string) =>
  permalink ? `https://www.reddit.com${permalink}` : fallback;

/**
 * Reddit (OAuth 2.0, a permanent refresh token): one channel is one account; each post goes to the
 * subreddit and with the title of its options. Text, link, image, gallery and video submissions; thread
 * parts and the first comment are comments (`/api/comment`); the subreddit's readable rules are checked
 * before anything is uploaded (docs/adr/0054).
 */
export class RedditProvider implements SocialProvider {
  readonly id = 'reddit';

  constructor(
    private readonly http: OutboundHttp,
    private readonly userAgent: string = DEFAULT_REDDIT_USER_AGENT,
    /** Pause before looking again for a media post Reddit is still processing. */
    private readonly pollMs: number = DEFAULT_VIDEO_POLL_MS,
  ) {}

  private api(credentials: unknown): RedditApi {
    return new RedditApi(this.http, parseRedditCredentials(credentials), this.userAgent);
  }

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const api = this.api(credentials);
    const res = await api.send({ method: 'GET', path: '/api/v1/me' }).catch((err: unknown) => {
      throw new InvalidCredentialsError(`Reddit could not be reached: ${(err as Error).message}`);
    });
    if (res.status === 429 || res.status >= 500) throw mapRedditFailure(res, 'content');
    if (res.status !== 200) {
      throw new InvalidCredentialsError(
        `Reddit refused the access token: ${redditErrorText(res.data) || `HTTP ${res.status}`}`,
      );
    }
    const me = asObject(res.data) ?? {};
    const name = asString(me.name);
    if (!name || !REDDIT_USERNAME.test(name)) throw new InvalidCredentialsError('Reddit returned no username');
    const stored = asObject(credentials) ?? {};
    const icon = asString(me.icon_img)?.split('?')[0] || null;
    return {
      externalId: `t2_${asString(me.id) ?? name}`,
      kind: 'personal',
      name,
      handle: `u/${name}`,
      avatarUrl: icon,
      profileUrl: `https://www.reddit.com/user/${name}/`,
      limits: copyLimits(REDDIT_LIMITS),
      credentials: {
        accessToken: api.credentials.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: api.credentials.apiBaseUrl,
        username: name,
      },
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(REDDIT_NAME, post.content, post.media, limits, { convertsVideo: true });
    const length = [...post.content].length;
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text has ${length} characters; a Reddit post allows ${limits.maxCharacters}`,
      });
    }
    const options = (post.options ?? {}) as Partial<RedditOptions>;
    if (options.url && post.media.length > 0) {
      problems.push({
        field: 'options.url',
        message: 'A Reddit link post carries no media: remove options.url or the media',
      });
    }
    if (post.media.some((m) => m.mimeType === 'image/gif') && post.media.length > 1) {
      problems.push({ field: 'mediaIds', message: 'A Reddit gallery takes JPEG and PNG images, not GIFs' });
    }
    return problems;
  }

  async publish(input: PublishInput<RedditOptions>): Promise<PublishResult> {
    const api = this.api(input.credentials);
    try {
      if (input.replyTo) return await this.reply(api, input, input.replyTo.parent.platformPostId);
      return await this.submit(api, input);
    } catch (err) {
      throw mapThrown(REDDIT_NAME, err);
    }
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = this.api(credentials);
    const res = await api.call(
      { method: 'GET', path: `/api/info?id=${encodeURIComponent(ref.platformPostId)}` },
      'content',
    );
    const [thing] = RedditApi.children(res.data);
    const n = (name: string) => RedditApi.number(thing, name);
    const raw = {
      score: n('score'),
      upvote_ratio: n('upvote_ratio'),
      num_comments: n('num_comments'),
      num_crossposts: n('num_crossposts'),
    };
    return {
      metrics: {
        likes: raw.score,
        reposts: raw.num_crossposts,
        replies: raw.num_comments,
        quotes: null,
        impressions: null,
        raw,
      },
    };
  }

  /** A submission to the options' subreddit, found again rather than sent twice after a lost answer. */
  private async submit(api: RedditApi, input: PublishInput<RedditOptions>): Promise<PublishResult> {
    const options = input.options ?? {};
    const sr = options.subreddit;
    const title = options.title;
    if (!sr || !title) {
      throw new ContentRejectedError('Reddit needs options.subreddit and options.title for a submission');
    }
    const kind = submissionKind(input.media, options);
    const state = asString(input.checkpoint?.state);
    if (state || (input.attempt ?? 1) > 1) {
      const found = await this.findSubmission(api, input, sr, title);
      if (found) return found;
      // Reddit answered the media submission (it has no id until processed): wait for the post.
      if (state === 'accepted') {
        throw new ProcessingPendingError(`Reddit is processing the ${kind} post to r/${sr}`, this.pollMs);
      }
    }
    const rules = await this.rules(api, sr);
    const refused = ruleProblem(rules, kind, input.content, options, sr);
    if (refused) throw new ContentRejectedError(refused);

    const form: Record<string, string> = {
      api_type: 'json',
      sr,
      title,
      nsfw: String(options.nsfw ?? false),
      spoiler: String(options.spoiler ?? false),
      sendreplies: String(options.sendReplies ?? true),
    };
    if (options.flairId) form.flair_id = options.flairId;
    if (options.flairText) form.flair_text = options.flairText;
    if (input.content) form.text = input.content;

    if (kind === 'gallery') {
      const items = [];
      for (const image of input.media) {
        const { assetId } = await this.upload(api, image);
        items.push({ media_id: assetId, caption: '', outbound_url: '' });
      }
      const body: Record<string, unknown> = {
        ...form,
        nsfw: options.nsfw ?? false,
        spoiler: options.spoiler ?? false,
        sendreplies: options.sendReplies ?? true,
        show_error_list: true,
        items,
      };
      await input.saveCheckpoint({ state: 'submitting' });
      const res = await api.call({ method: 'POST', path: '/api/submit_gallery_post.json', json: body }, 'content');
      const errors = redditApiErrors(res.data);
      if (errors.length > 0) throw apiErrorsFailure(errors);
      const id = asString(at(res.data, 'json', 'data', 'id'));
      if (!id) throw new TransientProviderError('Reddit accepted the gallery but returned no id', res.status);
      return {
        platformPostId: id.startsWith('t3_') ? id : `t3_${id}`,
        url: asString(at(res.data, 'json', 'data', 'url')) ?? '',
      };
    }

    if (kind === 'self') form.kind = 'self';
    if (kind === 'link') Object.assign(form, { kind: 'link', url: options.url!, resubmit: 'true' });
    if (kind === 'image') Object.assign(form, { kind: 'image', url: (await this.upload(api, input.media[0])).url });
    if (kind === 'video') {
      const video = (await videoToSend(input.media, REDDIT_VIDEO))!;
      const poster = await this.poster(video);
      Object.assign(form, {
        kind: 'video',
        url: (await this.upload(api, video)).url,
        video_poster_url: (await this.upload(api, poster)).url,
      });
    }
    await input.saveCheckpoint({ state: 'submitting' });
    const res = await api.call({ method: 'POST', path: '/api/submit', form }, 'content');
    const errors = redditApiErrors(res.data);
    if (errors.length > 0) throw apiErrorsFailure(errors);
    const name = asString(at(res.data, 'json', 'data', 'name'));
    if (name) return { platformPostId: name, url: asString(at(res.data, 'json', 'data', 'url')) ?? '' };
    // Image and video submissions are created once Reddit has processed the media: find the post.
    await input.saveCheckpoint({ state: 'accepted' });
    const found = await this.findSubmission(api, input, sr, title);
    if (found) return found;
    throw new ProcessingPendingError(`Reddit is processing the ${kind} post to r/${sr}`, this.pollMs);
  }

  /** A comment on `parent` (a thread part, or the first comment). */
  private async reply(api: RedditApi, input: PublishInput, parent: string): Promise<PublishResult> {
    const length = [...input.content].length;
    if (length > REDDIT_MAX_COMMENT) {
      throw new ContentRejectedError(
        `A Reddit comment allows ${REDDIT_MAX_COMMENT} characters; this one has ${length}`,
      );
    }
    if (input.media.length > 0) throw new MediaRejectedError('Reddit comments carry no media through this service');
    if ((input.attempt ?? 1) > 1 || input.checkpoint?.state) {
      const found = await this.findComment(api, parent, input);
      if (found) return found;
    }
    await input.saveCheckpoint({ state: 'submitting' });
    const res = await api.call(
      { method: 'POST', path: '/api/comment', form: { api_type: 'json', thing_id: parent, text: input.content } },
      'content',
    );
    const errors = redditApiErrors(res.data);
    if (errors.length > 0) throw apiErrorsFailure(errors);
    const thing = asObject(asObject(asArray(at(res.data, 'json', 'data', 'things'))?.[0])?.data);
    const name = asString(thing?.name);
    if (!name) throw new TransientProviderError('Reddit accepted the comment but returned no id', res.status);
    return {
      platformPostId: name,
      url: www(asString(thing?.permalink), `https://www.reddit.com/comments/${parent.slice(3)}`),
    };
  }

  /** The subreddit's rules the API exposes; a subreddit that cannot be read is refused, naming the option. */
  private async rules(api: RedditApi, sr: string): Promise<SubredditRules> {
    const about = await api.send({ method: 'GET', path: `/r/${encodeURIComponent(sr)}/about` });
    if (about.status === 401 || about.status === 429 || about.status >= 500) throw mapRedditFailure(about, 'content');
    const data = asObject(asObject(about.data)?.data);
    if (about.status !== 200 || !data) {
      throw new ContentRejectedError(
        `Reddit has no subreddit r/${sr} this account can post to (options.subreddit): ${redditErrorText(about.data) || `HTTP ${about.status}`}`,
        about.status,
      );
    }
    const req = await api.call(
      { method: 'GET', path: `/api/v1/${encodeURIComponent(sr)}/post_requirements` },
      'content',
    );
    const r = asObject(req.data) ?? {};
    return {
      submissionType: asString(data.submission_type) ?? 'any',
      allowImages: asBoolean(data.allow_images) ?? true,
      allowVideos: asBoolean(data.allow_videos) ?? true,
      allowGalleries: asBoolean(data.allow_galleries) ?? true,
      flairRequired: asBoolean(r.is_flair_required) ?? false,
      titleMin: asNumber(r.title_text_min_length) ?? null,
      titleMax: asNumber(r.title_text_max_length) ?? null,
      bodyPolicy: asString(r.body_restriction_policy) ?? 'none',
      bodyMax: asNumber(r.body_text_max_length) ?? null,
    };
  }

  /**
   * Uploads a file through Reddit's media asset lease: `POST /api/media/asset.json` gives the upload
   * form (action URL and signed fields) and the asset id; the file goes to the action URL with those
   * fields. Returns the media URL (image and video submissions) and the asset id (galleries).
   */
  private async upload(api: RedditApi, media: PublishMedia): Promise<{ url: string; assetId: string }> {
    const lease = await api.call(
      {
        method: 'POST',
        path: '/api/media/asset.json',
        form: { filepath: media.filename || 'upload', mimetype: media.mimeType },
      },
      'media',
    );
    const action = asString(at(lease.data, 'args', 'action'));
    const assetId = asString(at(lease.data, 'asset', 'asset_id'));
    const fields = (asArray(at(lease.data, 'args', 'fields')) ?? []).flatMap((f) => {
      const name = asString(asObject(f)?.name);
      const value = asString(asObject(f)?.value);
      return name !== undefined && value !== undefined ? [{ name, value }] : [];
    });
    const key = fields.find((f) => f.name === 'key')?.value;
    if (!action || !assetId || !key) {
      throw new TransientProviderError('Reddit gave no upload lease for the media', lease.status);
    }
    // The action is protocol-relative (`//reddit-uploaded-media.s3-accelerate.amazonaws.com`).
    const uploadUrl = new URL(action, `${api.credentials.apiBaseUrl}/`).toString().replace(/\/$/, '');
    const form = multipartForm([...fields, { name: 'file', media }]);
    // The storage is authorized by the signed fields: no bearer token goes there.
    const res = await this.http.request({
      method: 'POST',
      url: uploadUrl,
      headers: { 'content-type': form.contentType, 'content-length': String(form.contentLength) },
      body: form.body,
      timeoutMs: 600_000,
    });
    if (res.status < 200 || res.status >= 300) throw mapHttpFailure(REDDIT_NAME, res.status, res.headers, '', 'media');
    return { url: `${uploadUrl}/${key}`, assetId };
  }

  /** The video's poster frame (JPEG), which a Reddit video post requires, as a file to upload. */
  private async poster(video: PublishMedia): Promise<PublishMedia> {
    const url = await video.posterUrl?.();
    if (!url) throw new MediaRejectedError('Reddit needs a poster frame of the video, and none could be made');
    const res = await this.http.request({ method: 'GET', url, timeoutMs: 60_000 });
    if (res.status !== 200)
      throw new TransientProviderError(`The video's poster frame could not be read (HTTP ${res.status})`);
    const bytes = res.body;
    return {
      ...video,
      id: `${video.id}-poster`,
      mimeType: 'image/jpeg',
      filename: 'poster.jpg',
      size: bytes.length,
      altText: null,
      open: () => Readable.from([bytes]),
    };
  }

  /** The account's submission to `sr` with this title and text, made since the publication started. */
  private async findSubmission(
    api: RedditApi,
    input: PublishInput,
    sr: string,
    title: string,
  ): Promise<PublishResult | null> {
    const username = api.credentials.username;
    if (!username) return null;
    const res = await api.call(
      { method: 'GET', path: `/user/${encodeURIComponent(username)}/submitted?sort=new&limit=${LOOKUP_COUNT}` },
      'content',
    );
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const text = comparableText(input.content);
    const found = RedditApi.children(res.data).find(
      (p) =>
        (asString(p.subreddit) ?? '').toLowerCase() === sr.toLowerCase() &&
        asString(p.title) === title &&
        comparableText(asString(p.selftext) ?? '') === text &&
        (asNumber(p.created_utc) ?? 0) * 1000 >= since,
    );
    const name = asString(found?.name);
    return name ? { platformPostId: name, url: www(asString(found?.permalink), '') } : null;
  }

  /** The account's comment on `parent` with this text, if an earlier attempt made it. */
  private async findComment(api: RedditApi, parent: string, input: PublishInput): Promise<PublishResult | null> {
    const username = api.credentials.username;
    if (!username) return null;
    const res = await api.call(
      { method: 'GET', path: `/user/${encodeURIComponent(username)}/comments?sort=new&limit=${LOOKUP_COUNT}` },
      'content',
    );
    const text = comparableText(input.content);
    const found = RedditApi.children(res.data).find(
      (c) => asString(c.parent_id) === parent && comparableText(asString(c.body) ?? '') === text,
    );
    const name = asString(found?.name);
    return name ? { platformPostId: name, url: www(asString(found?.permalink), '') } : null;
  }
}

/** The kind of submission a post makes: its media decide, else a link when options.url is set. */
function submissionKind(media: PublishMedia[], options: Partial<RedditOptions>): SubmissionKind {
  if (media.some((m) => isVideoMedia(m))) return 'video';
  if (media.length > 1) return 'gallery';
  if (media.length === 1) return 'image';
  return options.url ? 'link' : 'self';
}

/** What the subreddit's rules refuse of this submission, naming the field; null when nothing. */
function ruleProblem(
  rules: SubredditRules,
  kind: SubmissionKind,
  content: string,
  options: Partial<RedditOptions>,
  sr: string,
): string | null {
  const refuse = (what: string) => `The rules of r/${sr} refuse the post: ${what}`;
  if (rules.submissionType === 'self' && kind !== 'self')
    return refuse(`it takes text posts only, not a ${kind} post (mediaIds, options.url)`);
  if (rules.submissionType === 'link' && kind === 'self')
    return refuse('it takes no text posts (add options.url or media)');
  if (kind === 'image' && !rules.allowImages) return refuse('it takes no images (mediaIds)');
  if (kind === 'gallery' && !(rules.allowGalleries && rules.allowImages))
    return refuse('it takes no galleries (mediaIds)');
  if (kind === 'video' && !rules.allowVideos) return refuse('it takes no videos (mediaIds)');
  if (rules.flairRequired && !options.flairId) return refuse('a flair is required (options.flairId)');
  const titleLength = [...(options.title ?? '')].length;
  if (rules.titleMin !== null && titleLength < rules.titleMin)
    return refuse(`the title needs at least ${rules.titleMin} characters (options.title)`);
  if (rules.titleMax !== null && titleLength > rules.titleMax)
    return refuse(`the title allows at most ${rules.titleMax} characters (options.title)`);
  if (rules.bodyPolicy === 'required' && content.trim() === '') return refuse('a body text is required (content)');
  if (rules.bodyPolicy === 'notAllowed' && content.trim() !== '') return refuse('it takes no body text (content)');
  if (rules.bodyMax !== null && [...content].length > rules.bodyMax)
    return refuse(`the body allows at most ${rules.bodyMax} characters (content)`);
  return null;
}

/**
 * Scopes: the account (`identity`), submitting and commenting (`submit`), the subreddit's rules
 * (`read`), the account's own posts and comments for lookups (`history`).
 */
const REDDIT_SCOPES = ['identity', 'submit', 'read', 'history'];

/** The Reddit plugin: OAuth 2.0 with a permanent refresh token; registered in provider.list.ts. */
export const redditPlugin = defineProvider({
  id: 'reddit',
  apiVersion: {
    pinned: 'v1',
    source:
      'Reddit API reference (www.reddit.com/dev/api, checked 2026-11-29): one unversioned API, OAuth paths under /api/v1; no retirement date stated',
  },
  displayName: 'Reddit',
  connectKind: 'oauth',
  credentials: RedditCredentialsDto,
  defaultLimits: REDDIT_LIMITS,
  // Reddit's API takes no alt text for images of a post.
  capabilities: { altText: false },
  optionsSchema: REDDIT_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: { auth: 'https://www.reddit.com', api: 'https://oauth.reddit.com', token: 'https://www.reddit.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/api/v1/authorize`,
    tokenUrl: (hosts) => `${hosts.token ?? hosts.auth}/api/v1/access_token`,
    scopes: REDDIT_SCOPES,
    // A refresh token that does not expire (Reddit's default `temporary` grant has none).
    authorizeParams: { duration: 'permanent' },
    clientAuthentication: 'basic',
  },
  settings: {
    ...oauthAppSettings('REDDIT', {
      clientId:
        'Reddit app of type "web app" (redirect URI {PUBLIC_BASE_URL}/api/oauth/reddit/callback); Reddit is listed disabled without both',
      authBaseUrl: 'override of https://www.reddit.com (consent page)',
      apiBaseUrl: 'override of https://oauth.reddit.com (API)',
      tokenBaseUrl: 'override of https://www.reddit.com (token endpoint)',
    }),
    userAgent: setting.matches('REDDIT_USER_AGENT', {
      pattern: /^\S+:\S+:\S+ \(.+\)$/,
      message: 'must read <platform>:<app id>:<version> (by /u/<username>), as Reddit asks',
      default: DEFAULT_REDDIT_USER_AGENT,
      description:
        'User-Agent of every call to Reddit, which blocks generic ones: <platform>:<app id>:<version> (by /u/<your Reddit username>)',
    }),
    pollMs: setting.int('REDDIT_MEDIA_POLL_MS', {
      default: DEFAULT_VIDEO_POLL_MS,
      min: 10,
      description:
        'interval between two looks for an image or video post Reddit is still processing (it has no id until then), each a delayed job that holds no worker',
    }),
  },
  // Revocation: POST /api/v1/revoke_token on the token host, the app authenticated with Basic; the
  // refresh token when there is one (Reddit then revokes the access tokens issued from it too).
  create: ({ http, settings }) =>
    withRevocation(new RedditProvider(http, settings.userAgent, settings.pollMs), async (credentials) => {
      const app = appCredentials('Reddit', settings);
      const refresh = storedToken(credentials, 'refreshToken');
      const token = refresh ?? storedToken(credentials, 'accessToken');
      if (!token) return;
      const host = (oauthClientSettings(settings).tokenBaseUrl ?? 'https://www.reddit.com').replace(/\/+$/, '');
      await revokeAt(http, 'Reddit', {
        method: 'POST',
        url: `${host}/api/v1/revoke_token`,
        basic: app,
        headers: { 'user-agent': settings.userAgent },
        form: { token, token_type_hint: refresh ? 'refresh_token' : 'access_token' },
      });
    }),
});
