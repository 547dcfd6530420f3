import type { OutboundHttp } from '../../common/http/outbound-http';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { GraphApi, META_GRAPH_SETTINGS, META_GRAPH_VERSION } from '../meta/graph-api.client';
import type { MetaAccountCredentials } from '../meta/meta-account.credentials';
import { MetaAccountCredentialsDto } from '../meta/meta-account.credentials';
import {
  GraphParams,
  MetaContainerNetwork,
  MetaContainerProvider,
  MetaFigures,
  MetaProfile,
} from '../meta/meta-container.provider';
import {
  META_VIDEO_SETTINGS,
  altTextOf,
  metaVideoRequirements,
  publicImageUrl,
  publicVideoUrl,
} from '../meta/meta-media';
import { META_CONTAINER_SETTINGS, type ContainerTiming } from '../meta/media-container';
import { longLivedTokenOAuth } from '../meta/meta-oauth';
import { comparableText, recentWithText } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings } from '../provider-settings';
import { asArray, asObject, asString } from '../provider-json.util';
import { TransientProviderError } from '../provider.errors';
import { optionsOf } from '../target-options.util';
import type {
  ChannelLimits,
  CommentInput,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
  MediaDescriptor,
} from '../social-provider.interface';
import { captionLength, captionProblems } from './instagram-caption';
import {
  INSTAGRAM_CAROUSEL_VIDEO,
  INSTAGRAM_DEFAULT_DAILY_POSTS,
  INSTAGRAM_LIMITS,
  INSTAGRAM_MAX_ASPECT,
  INSTAGRAM_MIN_ASPECT,
  INSTAGRAM_QUOTA_RETRY_SECONDS,
  INSTAGRAM_VIDEO_LIMITS,
} from './instagram.limits';
import { INSTAGRAM_OPTIONS_SCHEMA, InstagramOptions } from './instagram.options';
import { graphVersionSunset } from '../api-version';

/** How far before the publication's start the lookup of a lost answer reaches. */
/** The only image type Instagram publishes; others are converted first. */
const JPEG = 'image/jpeg';
/** What Instagram downloads: MP4/MOV, H.264 or HEVC with AAC, index first, within the Reels limits. */
const REEL_REQUIREMENTS = metaVideoRequirements('Instagram', INSTAGRAM_VIDEO_LIMITS);
/** A carousel's video items are shorter and smaller. */
const CAROUSEL_VIDEO_REQUIREMENTS = { ...REEL_REQUIREMENTS, ...INSTAGRAM_CAROUSEL_VIDEO };

/** Whether a post is a Reel with its cover image: `coverImage` set, a video then an image. */
function coverImagePost(media: MediaDescriptor[], options: Partial<InstagramOptions>): boolean {
  return options.coverImage === true && media.length === 2 && isVideoMedia(media[0]) && !isVideoMedia(media[1]);
}

/**
 * The Instagram API with Instagram Login (graph.instagram.com), for professional accounts: an image
 * post is a media container published with media_publish; a video alone is a Reel (`REELS`, with its
 * cover and `share_to_feed`); a carousel is a container of item containers, images and videos mixed.
 * Instagram downloads each image, converted to JPEG, and each video (converted once when it must be)
 * from our signed public URL; video containers are polled by the publisher's delayed jobs.
 */
export class InstagramProvider extends MetaContainerProvider {
  readonly id = 'instagram';
  protected readonly network: MetaContainerNetwork;

  constructor(
    http: OutboundHttp,
    timing: ContainerTiming,
    /** META_GRAPH_VERSION. */
    graphVersion: string = META_GRAPH_VERSION,
  ) {
    super(http, timing);
    this.network = {
      name: 'Instagram',
      version: graphVersion,
      limits: INSTAGRAM_LIMITS,
      profileFields: 'user_id,username,name,profile_picture_url,account_type',
      profileNoun: 'account',
      userIdNoun: 'account id',
      containerEdge: 'media',
      publishEdge: 'media_publish',
      textPosts: false,
      carouselKind: 'media',
      containerStatus: { statusField: 'status_code', errorField: 'status', kind: 'media' },
      quota: {
        edge: 'content_publishing_limit',
        replies: false,
        defaultDailyPosts: INSTAGRAM_DEFAULT_DAILY_POSTS,
        retrySeconds: INSTAGRAM_QUOTA_RETRY_SECONDS,
      },
      // Views, likes, comments and shares (instagram_business_manage_insights).
      insights: 'views,likes,comments,shares,saved,reach',
    };
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return captionLength(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(this.network.name, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    if (post.media.length === 0) {
      problems.push({ field: 'mediaIds', message: 'Instagram posts need at least one image or video' });
    }
    const options = optionsOf(post) as Partial<InstagramOptions>;
    const withCover = coverImagePost(post.media, options);
    if (options.coverImage === true && !withCover) {
      problems.push({
        field: 'options.coverImage',
        message: 'A Reel with a cover image needs exactly two media: the video, then the image',
      });
    }
    if (post.media.length > 1 && !withCover) {
      post.media.forEach((item, index) => {
        if (!isVideoMedia(item)) return;
        const field = `mediaIds[${index}]`;
        const { maxDurationSeconds: maxSeconds, maxBytes } = INSTAGRAM_CAROUSEL_VIDEO;
        if (item.durationMs && item.durationMs > maxSeconds * 1000) {
          problems.push({
            field,
            message: `Video ${item.id} is ${item.durationMs / 1000} s long; Instagram takes carousel videos of at most ${maxSeconds} s`,
          });
        }
        if (item.size > maxBytes) {
          problems.push({
            field,
            message: `Video ${item.id} is ${Math.round(item.size / 1024 / 1024)} MiB; Instagram takes carousel videos of at most ${maxBytes / 1024 / 1024} MiB`,
          });
        }
      });
    }
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The caption has ${length} characters; Instagram allows ${limits.maxCharacters}`,
      });
    }
    for (const message of captionProblems(post.content)) problems.push({ field: 'content', message });
    for (const item of post.media) {
      // Videos have their own aspect limits (limits.video); a cover image is not a feed image.
      if (isVideoMedia(item) || (withCover && item === post.media[1])) continue;
      if (!item.width || !item.height) continue;
      const ratio = item.width / item.height;
      if (ratio < INSTAGRAM_MIN_ASPECT - 0.005 || ratio > INSTAGRAM_MAX_ASPECT + 0.005) {
        problems.push({
          field: 'mediaIds',
          message: `Media ${item.id} is ${item.width}x${item.height}; Instagram takes aspect ratios from 4:5 to 1.91:1`,
        });
      }
    }
    return problems;
  }

  /**
   * A first comment: `POST /{ig-media-id}/comments` with `message`. Instagram takes no idempotency
   * key: a retry first looks among the media's comments for the account's own with this text.
   */
  async comment(input: CommentInput): Promise<PublishResult> {
    const creds = this.credentials(input.credentials);
    const api = this.api(creds);
    const mediaId = encodeURIComponent(input.post.platformPostId);
    const url = input.post.url;
    if (input.attempt > 1) {
      const res = await api.call('GET', `/${mediaId}/comments`, { fields: 'id,text,from' }, 'content');
      const wanted = comparableText(input.content);
      for (const item of asArray(asObject(res.data)?.data) ?? []) {
        const c = asObject(item);
        const id = asString(c?.id);
        const from = asString(asObject(c?.from)?.id);
        if (id && (!creds.userId || from === creds.userId) && comparableText(asString(c?.text) ?? '') === wanted) {
          return { platformPostId: id, url };
        }
      }
    }
    const res = await api.call('POST', `/${mediaId}/comments`, { message: input.content }, 'content');
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError('Instagram accepted the comment but returned no id', res.status);
    // A comment has no page of its own: its URL is the post's.
    return { platformPostId: id, url };
  }

  /** A Reel with its cover image publishes the video alone; the image is its cover. */
  protected override publishedMedia(input: PublishInput): PublishMedia[] {
    return coverImagePost(input.media, optionsOf(input)) ? [input.media[0]] : input.media;
  }

  /**
   * A video alone is a Reel (`media_type=REELS`): its cover is the post's cover image (converted to
   * JPEG) or else the poster frame the service keeps, and `share_to_feed` follows the option (true
   * by default). A carousel item is `media_type=VIDEO`.
   */
  protected async videoParams(media: PublishMedia, role: 'single' | 'item', input: PublishInput): Promise<GraphParams> {
    if (role === 'item') {
      return { media_type: 'VIDEO', video_url: await publicVideoUrl(media, CAROUSEL_VIDEO_REQUIREMENTS) };
    }
    const options = optionsOf(input) as Partial<InstagramOptions>;
    const cover = coverImagePost(input.media, options)
      ? await publicImageUrl(input.media[1], JPEG)
      : await media.posterUrl?.();
    return {
      media_type: 'REELS',
      video_url: await publicVideoUrl(media, REEL_REQUIREMENTS),
      cover_url: cover,
      share_to_feed: options.shareToFeed ?? true,
    };
  }

  /** Every post carries media: a container Instagram cannot process is the media's fault. */
  protected override mediaError(): boolean {
    return true;
  }

  protected profile(user: Record<string, unknown>): MetaProfile | null {
    // user_id is the professional account's id (what media and media_publish take); id is app-scoped.
    const id = asString(user.user_id) ?? asString(user.id);
    const username = asString(user.username);
    if (!id || !username) return null;
    return {
      id,
      username,
      name: asString(user.name) || username,
      avatarUrl: asString(user.profile_picture_url) ?? null,
    };
  }

  protected profileUrl(username: string | null): string {
    return username ? `https://www.instagram.com/${username}/` : 'https://www.instagram.com/';
  }

  /** The text is the caption. */
  protected postParams(input: PublishInput): GraphParams {
    return { caption: input.content || undefined };
  }

  /** Instagram takes JPEG only: the signed URL of the item converted to JPEG (cached with the item). */
  protected async imageParams(media: PublishMedia): Promise<GraphParams> {
    return { image_url: await publicImageUrl(media, JPEG), alt_text: altTextOf(media) };
  }

  protected figures(values: Record<string, number>): MetaFigures {
    const n = (k: string): number | null => values[k] ?? null;
    return { likes: n('likes'), reposts: n('shares'), replies: n('comments'), quotes: null, impressions: n('views') };
  }

  /** The account's media with this caption published since the publication started, when an answer was lost. */
  protected async findRecent(
    api: GraphApi,
    creds: MetaAccountCredentials,
    userId: string,
    input: PublishInput,
  ): Promise<PublishResult | null> {
    const res = await api.call(
      'GET',
      `/${userId}/media`,
      { fields: 'id,caption,timestamp,permalink', limit: 25 },
      'content',
    );
    const fields = { text: 'caption', time: 'timestamp' };
    const media = recentWithText(asObject(res.data)?.data, input.content, input.createdAt, fields);
    if (media)
      return {
        platformPostId: media.id,
        url: asString(media.permalink) ?? (await this.permalink(api, creds, media.id)),
      };
    return null;
  }
}

/** The Instagram plugin (Instagram API with Instagram Login), registered in provider.list.ts. */
export const instagramPlugin = defineProvider({
  id: 'instagram',
  apiVersion: {
    pinned: META_GRAPH_VERSION,
    setting: 'graphVersion',
    sunset: graphVersionSunset,
    source: 'Graph API changelog, Available Graph API Versions (developers.facebook.com), checked 2026-11-29',
  },
  displayName: 'Instagram',
  connectKind: 'oauth',
  credentials: MetaAccountCredentialsDto,
  defaultLimits: INSTAGRAM_LIMITS,
  optionsSchema: INSTAGRAM_OPTIONS_SCHEMA,
  capabilities: { altText: true },
  oauth: longLivedTokenOAuth({
    defaultHosts: {
      auth: 'https://www.instagram.com',
      token: 'https://api.instagram.com',
      api: 'https://graph.instagram.com',
    },
    scopes: ['instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_insights'],
    grantPrefix: 'ig',
  }),
  settings: {
    ...oauthAppSettings('INSTAGRAM', {
      clientId:
        'Instagram app id (Instagram API with Instagram Login, professional accounts; callback {PUBLIC_BASE_URL}/api/oauth/instagram/callback)',
      authBaseUrl: 'override of https://www.instagram.com (authorization window)',
      tokenBaseUrl: 'override of https://api.instagram.com (code exchange)',
      apiBaseUrl: 'override of https://graph.instagram.com (API, long-lived token exchange and renewal)',
    }),
    ...META_CONTAINER_SETTINGS,
    ...META_GRAPH_SETTINGS,
    ...META_VIDEO_SETTINGS,
  },
  create: ({ http, settings }) =>
    new InstagramProvider(
      http,
      {
        pollMs: settings.containerPollMs,
        maxWaitMs: settings.containerWaitSeconds * 1000,
        videoPollMs: settings.videoPollMs,
      },
      settings.graphVersion,
    ),
});
