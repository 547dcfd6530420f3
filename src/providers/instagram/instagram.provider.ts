import type { ConfigType } from '@nestjs/config';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { providersConfig } from '../../config/providers.config';
import { commonDraftProblems } from '../draft-validation.util';
import {
  GraphApi,
  META_GRAPH_VERSION,
  graphError,
  graphErrorText,
  insightValues,
  mapGraphFailure,
} from '../meta/graph-api.client';
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
  PublishMedia,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { captionLength, captionProblems } from './instagram-caption';
import { InstagramCredentials, InstagramCredentialsDto, parseInstagramCredentials } from './instagram.credentials';
import {
  INSTAGRAM_DEFAULT_DAILY_POSTS,
  INSTAGRAM_LIMITS,
  INSTAGRAM_MAX_ASPECT,
  INSTAGRAM_MIN_ASPECT,
  INSTAGRAM_QUOTA_RETRY_SECONDS,
} from './instagram.limits';

const NAME = 'Instagram';
/** How far before the publication's start the lookup of a lost answer reaches. */
const LOOKUP_SLACK_MS = 60_000;
/** The only image type Instagram publishes; others are converted first. */
const JPEG = 'image/jpeg';

/**
 * The Instagram API with Instagram Login (graph.instagram.com), for professional accounts: an image
 * post is a media container published with media_publish; a carousel is a container of item
 * containers. Instagram downloads each image, converted to JPEG, from our signed public URL.
 */
export class InstagramProvider implements SocialProvider {
  readonly id = 'instagram';

  constructor(
    private readonly http: OutboundHttp,
    private readonly timing: ContainerTiming,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseInstagramCredentials(credentials);
    const api = this.api(creds);
    let res;
    try {
      res = await api.send('GET', '/me', { fields: 'user_id,username,name,profile_picture_url,account_type' });
    } catch (err) {
      throw new InvalidCredentialsError(`Instagram could not be reached: ${(err as Error).message}`);
    }
    const error = graphError(res.data);
    if (res.status !== 200 || error) {
      throw new InvalidCredentialsError(`Instagram refused the access token: ${graphErrorText(error, res.status)}`);
    }
    const user = asObject(res.data);
    // user_id is the professional account's id (what media and media_publish take); id is app-scoped.
    const id = asString(user?.user_id) ?? asString(user?.id);
    const username = asString(user?.username);
    if (!user || !id || !username) throw new InvalidCredentialsError('Instagram did not return the account');
    const stored = asObject(credentials) ?? {};
    return {
      externalId: id,
      kind: 'personal',
      name: asString(user.name) || username,
      handle: `@${username}`,
      avatarUrl: asString(user.profile_picture_url) ?? null,
      profileUrl: `https://www.instagram.com/${username}/`,
      limits: copyLimits(INSTAGRAM_LIMITS),
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
    if (post.media.length === 0) {
      problems.push({ field: 'mediaIds', message: 'Instagram posts need at least one image' });
    }
    const length = captionLength(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The caption has ${length} characters; Instagram allows ${limits.maxCharacters}`,
      });
    }
    for (const message of captionProblems(post.content)) problems.push({ field: 'content', message });
    for (const item of post.media) {
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
   * Checks the 24-hour publishing quota, then publishes through a container (reused on a retry: see
   * media-container.ts): one image, or a CAROUSEL of image items; the text is the caption.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseInstagramCredentials(input.credentials);
    const userId = creds.userId;
    if (!userId) throw new CredentialsRevokedError('The Instagram channel has no account id: connect it again');
    const api = this.api(creds);
    if (!input.checkpoint) await this.checkQuota(api, userId);
    const steps: ContainerSteps = {
      name: NAME,
      mediaError: true,
      create: () => this.createContainer(api, userId, input),
      status: (id) => this.containerStatus(api, id),
      publish: async (id) => {
        const res = await api.call('POST', `/${userId}/media_publish`, { creation_id: id }, 'content');
        const mediaId = asString(asObject(res.data)?.id);
        if (!mediaId) throw new TransientProviderError('Instagram published the post but returned no id', res.status);
        return mediaId;
      },
      permalink: (mediaId) => this.permalink(api, creds, mediaId),
      findPublished: () => this.findRecent(api, creds, userId, input),
    };
    return publishThroughContainer(input, steps, this.timing);
  }

  /** Views, likes, comments and shares from the media insights (instagram_business_manage_insights). */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = this.api(parseInstagramCredentials(credentials));
    const res = await api.call(
      'GET',
      `/${encodeURIComponent(ref.platformPostId)}/insights`,
      { metric: 'views,likes,comments,shares,saved,reach' },
      'content',
    );
    const values = insightValues(res.data);
    const n = (k: string): number | null => values[k] ?? null;
    return {
      metrics: {
        likes: n('likes'),
        reposts: n('shares'),
        replies: n('comments'),
        quotes: null,
        impressions: n('views'),
        raw: { ...values },
      },
    };
  }

  private api(creds: InstagramCredentials): GraphApi {
    return new GraphApi(this.http, {
      name: NAME,
      baseUrl: creds.apiBaseUrl,
      version: META_GRAPH_VERSION,
      accessToken: creds.accessToken,
    });
  }

  /** Refuses early, as a rate limit, when the account used its 24-hour publishing quota (content_publishing_limit). */
  private async checkQuota(api: GraphApi, userId: string): Promise<void> {
    const res = await api.send('GET', `/${userId}/content_publishing_limit`, { fields: 'quota_usage,config' });
    if (res.status !== 200 || graphError(res.data)) {
      const failure = mapGraphFailure(NAME, res.status, res.headers, res.data, 'content');
      if (failure.transient || failure instanceof CredentialsRevokedError) throw failure;
      return; // the quota could not be read: media_publish enforces it anyway
    }
    const entry = asObject(asArray(asObject(res.data)?.data)?.[0]);
    const used = asNumber(entry?.quota_usage);
    const total = asNumber(asObject(entry?.config)?.quota_total) ?? INSTAGRAM_DEFAULT_DAILY_POSTS;
    if (used !== undefined && used >= total) {
      throw new TransientProviderError(
        `Instagram publishing limit reached: ${used} of ${total} posts in 24 hours`,
        undefined,
        INSTAGRAM_QUOTA_RETRY_SECONDS,
        true,
      );
    }
  }

  private async createContainer(api: GraphApi, userId: string, input: PublishInput): Promise<string> {
    const create = async (params: Record<string, string | boolean | undefined>) => {
      const res = await api.call('POST', `/${userId}/media`, params, 'media');
      const id = asString(asObject(res.data)?.id);
      if (!id) throw new TransientProviderError('Instagram created a container but returned no id', res.status);
      return id;
    };
    const caption = input.content || undefined;
    if (input.media.length === 1) {
      const [media] = input.media;
      return create({ image_url: await this.imageUrl(media), alt_text: altTextOf(media), caption });
    }
    const children: string[] = [];
    for (const media of input.media) {
      children.push(
        await create({ image_url: await this.imageUrl(media), alt_text: altTextOf(media), is_carousel_item: true }),
      );
    }
    // Each item must be processed before the carousel is created from it.
    const item = { name: NAME, mediaError: true, status: (id: string) => this.containerStatus(api, id) };
    for (const child of children) await waitUntilFinished(item, child, this.timing);
    return create({ media_type: 'CAROUSEL', children: children.join(','), caption });
  }

  /** Instagram takes JPEG only: the signed URL of the item converted to JPEG (cached with the item). */
  private imageUrl(media: PublishMedia): Promise<string> {
    return publicImageUrl(media, JPEG);
  }

  private async containerStatus(api: GraphApi, id: string): Promise<ContainerState> {
    const res = await api.send('GET', `/${encodeURIComponent(id)}`, { fields: 'status_code,status' });
    const error = graphError(res.data);
    if (res.status === 404 || (error?.code === 100 && res.status < 500)) return { status: 'GONE', error: null };
    if (res.status !== 200 || error) throw mapGraphFailure(NAME, res.status, res.headers, res.data, 'media');
    const data = asObject(res.data);
    const status = asString(data?.status_code);
    const known = ['FINISHED', 'IN_PROGRESS', 'ERROR', 'EXPIRED', 'PUBLISHED'] as const;
    return { status: known.find((s) => s === status) ?? 'IN_PROGRESS', error: asString(data?.status) ?? null };
  }

  private async permalink(api: GraphApi, creds: InstagramCredentials, mediaId: string): Promise<string> {
    const fallback = creds.username ? `https://www.instagram.com/${creds.username}/` : 'https://www.instagram.com/';
    try {
      const res = await api.send('GET', `/${encodeURIComponent(mediaId)}`, { fields: 'permalink' });
      return (res.status === 200 && asString(asObject(res.data)?.permalink)) || fallback;
    } catch {
      return fallback;
    }
  }

  /** The account's media with this caption published since the publication started, when an answer was lost. */
  private async findRecent(
    api: GraphApi,
    creds: InstagramCredentials,
    userId: string,
    input: PublishInput,
  ): Promise<PublishResult | null> {
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const res = await api.call(
      'GET',
      `/${userId}/media`,
      { fields: 'id,caption,timestamp,permalink', limit: 25 },
      'content',
    );
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.data) ?? []) {
      const media = asObject(item);
      const id = asString(media?.id);
      const at = Date.parse(asString(media?.timestamp) ?? '');
      if (!id || (Number.isFinite(at) && at < since)) continue;
      if (comparableText(asString(media?.caption) ?? '') !== wanted) continue;
      return { platformPostId: id, url: asString(media?.permalink) ?? (await this.permalink(api, creds, id)) };
    }
    return null;
  }
}

/** The Instagram plugin (Instagram API with Instagram Login), registered in provider.list.ts. */
export const instagramPlugin = defineProvider({
  id: 'instagram',
  displayName: 'Instagram',
  connectKind: 'oauth',
  credentials: InstagramCredentialsDto,
  defaultLimits: INSTAGRAM_LIMITS,
  oauth: {
    defaultHosts: {
      auth: 'https://www.instagram.com',
      token: 'https://api.instagram.com',
      api: 'https://graph.instagram.com',
    },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/authorize`,
    tokenUrl: (hosts) => `${hosts.token ?? hosts.api}/oauth/access_token`,
    scopes: ['instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_insights'],
    scopeSeparator: ',',
    clientAuthentication: 'body',
    afterCodeExchange: exchangeForLongLived((hosts) => `${hosts.api}/access_token`, 'ig_exchange_token'),
    refresh: refreshLongLived((hosts) => `${hosts.api}/refresh_access_token`, 'ig_refresh_token'),
    refreshWindowMs: META_REFRESH_WINDOW_MS,
    transientTokenError: metaTransientTokenError,
  },
  inject: [providersConfig.KEY],
  create: ({ http, resolve }) =>
    new InstagramProvider(http, resolve<ConfigType<typeof providersConfig>>(providersConfig.KEY).metaContainer),
});
