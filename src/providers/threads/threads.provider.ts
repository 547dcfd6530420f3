import type { ConfigType } from '@nestjs/config';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { providersConfig } from '../../config/providers.config';
import { commonDraftProblems } from '../draft-validation.util';
import { GraphApi, graphError, graphErrorText, insightValues, mapGraphFailure } from '../meta/graph-api.client';
import {
  ContainerState,
  ContainerSteps,
  ContainerTiming,
  publishThroughContainer,
  waitUntilFinished,
} from '../meta/media-container';
import { altTextOf, publicImageUrl } from '../meta/meta-media';
import {
  META_REFRESH_WINDOW_MS,
  exchangeForLongLived,
  metaTransientTokenError,
  refreshLongLived,
} from '../meta/meta-oauth';
import { comparableText, copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import { CredentialsRevokedError, InvalidCredentialsError, TransientProviderError } from '../provider.errors';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { countThreadsCharacters } from './threads-text';
import { ThreadsCredentials, ThreadsCredentialsDto, parseThreadsCredentials } from './threads.credentials';
import { THREADS_DEFAULT_DAILY_POSTS, THREADS_LIMITS, THREADS_QUOTA_RETRY_SECONDS } from './threads.limits';

const NAME = 'Threads';
const VERSION = 'v1.0';
/** How far before the publication's start the lookup of a lost answer reaches. */
const LOOKUP_SLACK_MS = 60_000;

/**
 * The Threads API (graph.threads.net): posts are media containers (text, image, or a carousel of
 * images) published with threads_publish, after Threads has downloaded the images from our signed
 * public URLs; parts of a thread are containers with `reply_to_id`.
 */
export class ThreadsProvider implements SocialProvider {
  readonly id = 'threads';

  constructor(
    private readonly http: OutboundHttp,
    private readonly timing: ContainerTiming,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseThreadsCredentials(credentials);
    const api = this.api(creds);
    let res;
    try {
      res = await api.send('GET', '/me', { fields: 'id,username,name,threads_profile_picture_url' });
    } catch (err) {
      throw new InvalidCredentialsError(`Threads could not be reached: ${(err as Error).message}`);
    }
    const error = graphError(res.data);
    if (res.status !== 200 || error) {
      throw new InvalidCredentialsError(`Threads refused the access token: ${graphErrorText(error, res.status)}`);
    }
    const user = asObject(res.data);
    const id = asString(user?.id);
    const username = asString(user?.username);
    if (!user || !id || !username) throw new InvalidCredentialsError('Threads did not return the profile');
    const stored = asObject(credentials) ?? {};
    return {
      externalId: id,
      kind: 'personal',
      name: asString(user.name) || username,
      handle: `@${username}`,
      avatarUrl: asString(user.threads_profile_picture_url) ?? null,
      profileUrl: `https://www.threads.com/@${username}`,
      limits: copyLimits(THREADS_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        userId: id,
        username,
      },
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(NAME, post.content, post.media, limits);
    const length = countThreadsCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text counts ${length} characters as Threads counts them (an emoji counts its UTF-8 bytes); Threads allows ${limits.maxCharacters}`,
      });
    }
    return problems;
  }

  /**
   * Checks the 24-hour publishing quota, then publishes through a container (reused on a retry: see
   * media-container.ts): TEXT, IMAGE, or CAROUSEL of IMAGE items; a thread part replies to its parent.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseThreadsCredentials(input.credentials);
    const userId = creds.userId;
    if (!userId) throw new CredentialsRevokedError('The Threads channel has no user id: connect it again');
    const api = this.api(creds);
    const reply = input.replyTo?.parent.platformPostId;
    if (!input.checkpoint) await this.checkQuota(api, userId, reply !== undefined);
    const steps: ContainerSteps = {
      name: NAME,
      mediaError: input.media.length > 0,
      create: () => this.createContainer(api, userId, input),
      status: (id) => this.containerStatus(api, id),
      publish: async (id) => {
        const res = await api.call('POST', `/${userId}/threads_publish`, { creation_id: id }, 'content');
        const mediaId = asString(asObject(res.data)?.id);
        if (!mediaId) throw new TransientProviderError('Threads published the post but returned no id', res.status);
        return mediaId;
      },
      permalink: (mediaId) => this.permalink(api, creds, mediaId),
      findPublished: () => this.findRecent(api, creds, userId, input),
    };
    return publishThroughContainer(input, steps, this.timing);
  }

  /** Views, likes, replies, reposts and quotes from the media insights (threads_manage_insights). */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = this.api(parseThreadsCredentials(credentials));
    const res = await api.call(
      'GET',
      `/${encodeURIComponent(ref.platformPostId)}/insights`,
      { metric: 'views,likes,replies,reposts,quotes' },
      'content',
    );
    const values = insightValues(res.data);
    const n = (k: string): number | null => values[k] ?? null;
    return {
      metrics: {
        likes: n('likes'),
        reposts: n('reposts'),
        replies: n('replies'),
        quotes: n('quotes'),
        impressions: n('views'),
        raw: { ...values },
      },
    };
  }

  private api(creds: ThreadsCredentials): GraphApi {
    return new GraphApi(this.http, {
      name: NAME,
      baseUrl: creds.apiBaseUrl,
      version: VERSION,
      accessToken: creds.accessToken,
    });
  }

  /**
   * Refuses early, as a rate limit, when the profile used its 24-hour quota of posts (or of replies
   * for a thread part), which Threads enforces on threads_publish.
   */
  private async checkQuota(api: GraphApi, userId: string, reply: boolean): Promise<void> {
    const res = await api.send('GET', `/${userId}/threads_publishing_limit`, {
      fields: 'quota_usage,config,reply_quota_usage,reply_config',
    });
    if (res.status !== 200 || graphError(res.data)) {
      const failure = mapGraphFailure(NAME, res.status, res.headers, res.data, 'content');
      if (failure.transient || failure instanceof CredentialsRevokedError) throw failure;
      return; // the quota could not be read: threads_publish enforces it anyway
    }
    const entry = asObject(asArray(asObject(res.data)?.data)?.[0]);
    const used = asNumber(entry?.[reply ? 'reply_quota_usage' : 'quota_usage']);
    const total =
      asNumber(asObject(entry?.[reply ? 'reply_config' : 'config'])?.quota_total) ??
      (reply ? undefined : THREADS_DEFAULT_DAILY_POSTS);
    if (used !== undefined && total !== undefined && used >= total) {
      throw new TransientProviderError(
        `Threads publishing limit reached: ${used} of ${total} ${reply ? 'replies' : 'posts'} in 24 hours`,
        undefined,
        THREADS_QUOTA_RETRY_SECONDS,
        true,
      );
    }
  }

  private async createContainer(api: GraphApi, userId: string, input: PublishInput): Promise<string> {
    const reply = input.replyTo?.parent.platformPostId;
    const create = async (params: Record<string, string | boolean | undefined>, kind: 'content' | 'media') => {
      const res = await api.call('POST', `/${userId}/threads`, params, kind);
      const id = asString(asObject(res.data)?.id);
      if (!id) throw new TransientProviderError('Threads created a container but returned no id', res.status);
      return id;
    };
    if (input.media.length === 0) {
      return create({ media_type: 'TEXT', text: input.content, reply_to_id: reply }, 'content');
    }
    if (input.media.length === 1) {
      const [media] = input.media;
      return create(
        {
          media_type: 'IMAGE',
          image_url: await publicImageUrl(media),
          alt_text: altTextOf(media),
          text: input.content || undefined,
          reply_to_id: reply,
        },
        'media',
      );
    }
    const children: string[] = [];
    for (const media of input.media) {
      children.push(
        await create(
          {
            media_type: 'IMAGE',
            image_url: await publicImageUrl(media),
            alt_text: altTextOf(media),
            is_carousel_item: true,
          },
          'media',
        ),
      );
    }
    // Each item must be processed before the carousel is created from it.
    const item = { name: NAME, mediaError: true, status: (id: string) => this.containerStatus(api, id) };
    for (const child of children) await waitUntilFinished(item, child, this.timing);
    return create(
      { media_type: 'CAROUSEL', children: children.join(','), text: input.content || undefined, reply_to_id: reply },
      'content',
    );
  }

  private async containerStatus(api: GraphApi, id: string): Promise<ContainerState> {
    const res = await api.send('GET', `/${encodeURIComponent(id)}`, { fields: 'status,error_message' });
    const error = graphError(res.data);
    if (res.status === 404 || (error?.code === 100 && res.status < 500)) return { status: 'GONE', error: null };
    if (res.status !== 200 || error) throw mapGraphFailure(NAME, res.status, res.headers, res.data, 'content');
    const data = asObject(res.data);
    const status = asString(data?.status);
    const known = ['FINISHED', 'IN_PROGRESS', 'ERROR', 'EXPIRED', 'PUBLISHED'] as const;
    return {
      status: known.find((s) => s === status) ?? 'IN_PROGRESS',
      error: asString(data?.error_message) ?? null,
    };
  }

  private async permalink(api: GraphApi, creds: ThreadsCredentials, mediaId: string): Promise<string> {
    const fallback = creds.username ? `https://www.threads.com/@${creds.username}` : 'https://www.threads.com/';
    try {
      const res = await api.send('GET', `/${encodeURIComponent(mediaId)}`, { fields: 'permalink' });
      return (res.status === 200 && asString(asObject(res.data)?.permalink)) || fallback;
    } catch {
      return fallback;
    }
  }

  /**
   * The profile's post with this text published since the publication started (for a thread part:
   * among its replies, answering the parent), when a publish answer was lost.
   */
  private async findRecent(
    api: GraphApi,
    creds: ThreadsCredentials,
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
  displayName: 'Threads',
  connectKind: 'oauth',
  credentials: ThreadsCredentialsDto,
  defaultLimits: THREADS_LIMITS,
  oauth: {
    defaultHosts: { auth: 'https://threads.com', api: 'https://graph.threads.net' },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/authorize`,
    tokenUrl: (hosts) => `${hosts.api}/oauth/access_token`,
    scopes: [
      'threads_basic',
      'threads_content_publish',
      'threads_manage_replies',
      'threads_read_replies',
      'threads_manage_insights',
    ],
    scopeSeparator: ',',
    clientAuthentication: 'body',
    afterCodeExchange: exchangeForLongLived((hosts) => `${hosts.api}/access_token`, 'th_exchange_token'),
    refresh: refreshLongLived((hosts) => `${hosts.api}/refresh_access_token`, 'th_refresh_token'),
    refreshWindowMs: META_REFRESH_WINDOW_MS,
    transientTokenError: metaTransientTokenError,
  },
  inject: [providersConfig.KEY],
  create: ({ http, resolve }) =>
    new ThreadsProvider(http, resolve<ConfigType<typeof providersConfig>>(providersConfig.KEY).metaContainer),
});
