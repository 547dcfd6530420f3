import { altTextProblems, commonDraftProblems } from '../draft-validation.util';
import type { GraphApi } from '../meta/graph-api.client';
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
import { META_CONTAINER_SETTINGS } from '../meta/media-container';
import { longLivedTokenOAuth } from '../meta/meta-oauth';
import { comparableText } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings } from '../provider-settings';
import { asArray, asObject, asString } from '../provider-json.util';
import type {
  ChannelLimits,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
} from '../social-provider.interface';
import { countThreadsCharacters } from './threads-text';
import {
  THREADS_DEFAULT_DAILY_POSTS,
  THREADS_LIMITS,
  THREADS_MAX_ALT_TEXT,
  THREADS_QUOTA_RETRY_SECONDS,
  THREADS_VIDEO_LIMITS,
} from './threads.limits';

/** What Threads downloads: MP4/MOV, H.264 or HEVC with AAC, index first, within its limits. */
const VIDEO_REQUIREMENTS = metaVideoRequirements('Threads', THREADS_VIDEO_LIMITS);

/** How far before the publication's start the lookup of a lost answer reaches. */
const LOOKUP_SLACK_MS = 60_000;

/**
 * The Threads API (graph.threads.net): posts are media containers (text, image, video, or a carousel
 * mixing images and videos) published with threads_publish, after Threads has downloaded the files
 * from our signed public URLs; parts of a thread are containers with `reply_to_id`. A video container
 * is polled by the publisher's delayed jobs until FINISHED (media-container.ts).
 */
export class ThreadsProvider extends MetaContainerProvider {
  readonly id = 'threads';
  protected readonly network: MetaContainerNetwork = {
    name: 'Threads',
    version: 'v1.0',
    limits: THREADS_LIMITS,
    profileFields: 'id,username,name,threads_profile_picture_url',
    profileNoun: 'profile',
    userIdNoun: 'user id',
    containerEdge: 'threads',
    publishEdge: 'threads_publish',
    textPosts: true,
    carouselKind: 'content',
    containerStatus: { statusField: 'status', errorField: 'error_message', kind: 'content' },
    quota: {
      edge: 'threads_publishing_limit',
      replies: true,
      defaultDailyPosts: THREADS_DEFAULT_DAILY_POSTS,
      retrySeconds: THREADS_QUOTA_RETRY_SECONDS,
    },
    // Views, likes, replies, reposts and quotes (threads_manage_insights).
    insights: 'views,likes,replies,reposts,quotes',
  };

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return countThreadsCharacters(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(this.network.name, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text counts ${length} characters as Threads counts them (an emoji counts its UTF-8 bytes); Threads allows ${limits.maxCharacters}`,
      });
    }
    problems.push(...altTextProblems('Threads', post.media, THREADS_MAX_ALT_TEXT));
    return problems;
  }

  protected profile(user: Record<string, unknown>): MetaProfile | null {
    const id = asString(user.id);
    const username = asString(user.username);
    if (!id || !username) return null;
    return {
      id,
      username,
      name: asString(user.name) || username,
      avatarUrl: asString(user.threads_profile_picture_url) ?? null,
    };
  }

  protected profileUrl(username: string | null): string {
    return username ? `https://www.threads.com/@${username}` : 'https://www.threads.com/';
  }

  protected postParams(input: PublishInput): GraphParams {
    return { text: input.content || undefined, reply_to_id: input.replyTo?.parent.platformPostId };
  }

  protected async imageParams(media: PublishMedia): Promise<GraphParams> {
    return { media_type: 'IMAGE', image_url: await publicImageUrl(media), alt_text: altTextOf(media) };
  }

  /** `media_type=VIDEO` from the signed URL of the copy Threads takes (alone or as a carousel item). */
  protected async videoParams(media: PublishMedia): Promise<GraphParams> {
    return {
      media_type: 'VIDEO',
      video_url: await publicVideoUrl(media, VIDEO_REQUIREMENTS),
      alt_text: altTextOf(media),
    };
  }

  protected figures(values: Record<string, number>): MetaFigures {
    const n = (k: string): number | null => values[k] ?? null;
    return {
      likes: n('likes'),
      reposts: n('reposts'),
      replies: n('replies'),
      quotes: n('quotes'),
      impressions: n('views'),
    };
  }

  /**
   * The profile's post with this text published since the publication started (for a thread part:
   * among its replies, answering the parent), when a publish answer was lost.
   */
  protected async findRecent(
    api: GraphApi,
    creds: MetaAccountCredentials,
    userId: string,
    input: PublishInput,
  ): Promise<PublishResult | null> {
    const parent = input.replyTo?.parent.platformPostId;
    const since = Math.floor((input.createdAt.getTime() - LOOKUP_SLACK_MS) / 1000);
    const res = await api.call(
      'GET',
      `/${userId}/${parent ? 'replies' : 'threads'}`,
      { fields: 'id,text,timestamp,permalink,replied_to', since, limit: 25 },
      'content',
    );
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.data) ?? []) {
      const post = asObject(item);
      const id = asString(post?.id);
      if (!id || comparableText(asString(post?.text) ?? '') !== wanted) continue;
      if (parent !== undefined && asString(asObject(post?.replied_to)?.id) !== parent) continue;
      return { platformPostId: id, url: asString(post?.permalink) ?? (await this.permalink(api, creds, id)) };
    }
    return null;
  }
}

/** The Threads plugin: OAuth with long-lived tokens renewed by themselves, registered in provider.list.ts. */
export const threadsPlugin = defineProvider({
  id: 'threads',
  apiVersion: {
    pinned: 'v1.0',
    source: 'Threads API reference (graph.threads.net/v1.0), checked 2026-11-29; no retirement date stated',
  },
  displayName: 'Threads',
  connectKind: 'oauth',
  credentials: MetaAccountCredentialsDto,
  defaultLimits: THREADS_LIMITS,
  capabilities: { altText: true },
  oauth: longLivedTokenOAuth({
    defaultHosts: { auth: 'https://threads.com', api: 'https://graph.threads.net' },
    scopes: [
      'threads_basic',
      'threads_content_publish',
      'threads_manage_replies',
      'threads_read_replies',
      'threads_manage_insights',
    ],
    grantPrefix: 'th',
  }),
  settings: {
    ...oauthAppSettings('THREADS', {
      clientId:
        'the Threads app id of a Meta app with the Threads use case (callback {PUBLIC_BASE_URL}/api/oauth/threads/callback); disabled without both\n' +
        "(Meta's networks download media from signed URLs of this service: PUBLIC_BASE_URL must be reachable from the internet)",
      clientSecret: 'the Threads app secret',
      authBaseUrl: 'override of https://threads.com (authorization window)',
      apiBaseUrl: 'override of https://graph.threads.net (API and token endpoints)',
    }),
    ...META_CONTAINER_SETTINGS,
    ...META_VIDEO_SETTINGS,
  },
  create: ({ http, settings }) =>
    new ThreadsProvider(http, {
      pollMs: settings.containerPollMs,
      maxWaitMs: settings.containerWaitSeconds * 1000,
      videoPollMs: settings.videoPollMs,
    }),
});
