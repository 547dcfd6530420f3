import type { OutboundHttp } from '../../common/http/outbound-http';
import { copyLimits } from '../plugin-helpers.util';
import type { CallKind } from '../provider-http.util';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import { isVideoMedia } from '../draft-validation.util';
import { CredentialsRevokedError, InvalidCredentialsError, TransientProviderError } from '../provider.errors';
import type {
  ChannelLimits,
  ConnectedAccount,
  Metrics,
  MetricsResult,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishMedia,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { GraphApi, graphError, graphErrorText, insightValues, mapGraphFailure } from './graph-api.client';
import { MetaAccountCredentials, parseMetaAccountCredentials } from './meta-account.credentials';
import {
  ContainerState,
  ContainerSteps,
  ContainerTiming,
  publishThroughContainer,
  VideoContainerSteps,
  waitUntilFinished,
} from './media-container';

/** Default pause between two reads of a video container being processed. */
const DEFAULT_VIDEO_POLL_MS = 15_000;

/** Parameters of a Graph call (undefined ones are left out). */
export type GraphParams = Record<string, string | boolean | undefined>;

/** The account `GET /me` describes. */
export interface MetaProfile {
  id: string;
  username: string;
  name: string;
  avatarUrl: string | null;
}

/** Figures of a post, from its insights (by metric name). */
export type MetaFigures = Omit<Metrics, 'raw'>;

/** What sets a network publishing through Meta's media containers apart, where the path is shared. */
export interface MetaContainerNetwork {
  /** The network's name in messages. */
  name: string;
  /** Path prefix of the Graph API version (Threads: v1.0). */
  version: string;
  limits: ChannelLimits;
  /** Fields of `GET /me`. */
  profileFields: string;
  /** What `GET /me` describes, in "did not return the profile". */
  profileNoun: string;
  /** What the stored `userId` is, in "the channel has no user id". */
  userIdNoun: string;
  /** Edge of the account that creates containers (`threads`, `media`) and the one publishing them. */
  containerEdge: string;
  publishEdge: string;
  /** Whether a post without media is a TEXT container (Threads) rather than refused (Instagram: validation). */
  textPosts: boolean;
  /** Call kind of a failed CAROUSEL creation (Threads: the text's; Instagram: the media's). */
  carouselKind: CallKind;
  /** Reading a container's state: the fields holding the status and the reason, and the kind of a failed read. */
  containerStatus: { statusField: string; errorField: string; kind: CallKind };
  /** The 24-hour publishing quota: edge, whether replies count apart, the defaults when the network does not say. */
  quota: { edge: string; replies: boolean; defaultDailyPosts: number; retrySeconds: number };
  /** Insights metrics asked for. */
  insights: string;
}

/**
 * Threads and Instagram: a post is a media container (for a carousel, a container of item
 * containers) that the network fills by downloading our signed image URLs, then publishes; a retry
 * reuses the saved container (media-container.ts, docs/adr/0023). This base holds the shared path:
 * connect (`GET /me`), the quota check, containers, publishing, permalinks, insights. A network
 * declares its names and fields, and implements validation, its profile, the parameters of its
 * containers and the lookup of a post whose publish answer was lost.
 */
export abstract class MetaContainerProvider implements SocialProvider {
  abstract readonly id: string;
  protected abstract readonly network: MetaContainerNetwork;

  constructor(
    protected readonly http: OutboundHttp,
    protected readonly timing: ContainerTiming,
  ) {}

  abstract validate(post: PostDraft, limits: ChannelLimits): Problem[];

  /** The account of a `GET /me` answer; null when it lacks the id or the username. */
  protected abstract profile(user: Record<string, unknown>): MetaProfile | null;

  /** The account's page (the network's home page when the username is unknown). */
  protected abstract profileUrl(username: string | null): string;

  /** The post's text and reply target, as parameters of its container. */
  protected abstract postParams(input: PublishInput): GraphParams;

  /** One image's parameters, alone or as a carousel item. */
  protected abstract imageParams(media: PublishMedia): Promise<GraphParams>;

  /**
   * One video's parameters: `single` for a post of this video alone (with the post's options),
   * `item` for a carousel item. The URL is the signed one of the copy the network takes.
   */
  protected abstract videoParams(
    media: PublishMedia,
    role: 'single' | 'item',
    input: PublishInput,
  ): Promise<GraphParams>;

  /** The figures of the network's insights values. */
  protected abstract figures(values: Record<string, number>): MetaFigures;

  /**
   * The account's post published from this input since the publication started, when a publish
   * answer was lost; null when it is not listed (yet).
   */
  protected abstract findRecent(
    api: GraphApi,
    creds: MetaAccountCredentials,
    userId: string,
    input: PublishInput,
  ): Promise<PublishResult | null>;

  /** The media published as the post's items: all of them, unless the network uses some otherwise. */
  protected publishedMedia(input: PublishInput): PublishMedia[] {
    return input.media;
  }

  /** Whether a container the network could not process failed because of the media (MEDIA_REJECTED). */
  protected mediaError(input: PublishInput): boolean {
    return input.media.length > 0;
  }

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const { name } = this.network;
    const creds = this.credentials(credentials);
    const api = this.api(creds);
    let res;
    try {
      res = await api.send('GET', '/me', { fields: this.network.profileFields });
    } catch (err) {
      throw new InvalidCredentialsError(`${name} could not be reached: ${(err as Error).message}`);
    }
    const error = graphError(res.data);
    if (res.status !== 200 || error) {
      throw new InvalidCredentialsError(`${name} refused the access token: ${graphErrorText(error, res.status)}`);
    }
    const user = asObject(res.data);
    const profile = user ? this.profile(user) : null;
    if (!profile) throw new InvalidCredentialsError(`${name} did not return the ${this.network.profileNoun}`);
    const stored = asObject(credentials) ?? {};
    return {
      externalId: profile.id,
      kind: 'personal',
      name: profile.name,
      handle: `@${profile.username}`,
      avatarUrl: profile.avatarUrl,
      profileUrl: this.profileUrl(profile.username),
      limits: copyLimits(this.network.limits),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        userId: profile.id,
        username: profile.username,
      },
    };
  }

  /**
   * Checks the 24-hour publishing quota, then publishes through a container (reused on a retry: see
   * media-container.ts): one image or a CAROUSEL of image items (Threads also TEXT); a thread part
   * replies to its parent.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const { name, publishEdge, userIdNoun } = this.network;
    const creds = this.credentials(input.credentials);
    const userId = creds.userId;
    if (!userId) throw new CredentialsRevokedError(`The ${name} channel has no ${userIdNoun}: connect it again`);
    const api = this.api(creds);
    if (!input.checkpoint) await this.checkQuota(api, userId, input.replyTo !== undefined);
    // What is published as media (Instagram: a Reel's cover image is not a carousel item).
    const post = { ...input, media: this.publishedMedia(input) };
    const steps: ContainerSteps = {
      name,
      mediaError: this.mediaError(input),
      create: () => this.createContainer(api, userId, post, input),
      status: (id) => this.containerStatus(api, id),
      publish: async (id) => {
        const res = await api.call('POST', `/${userId}/${publishEdge}`, { creation_id: id }, 'content');
        const mediaId = asString(asObject(res.data)?.id);
        if (!mediaId) throw new TransientProviderError(`${name} published the post but returned no id`, res.status);
        return mediaId;
      },
      permalink: (mediaId) => this.permalink(api, creds, mediaId),
      findPublished: () => this.findRecent(api, creds, userId, input),
      video: post.media.some((m) => isVideoMedia(m)) ? this.videoSteps(api, userId, post, input) : undefined,
    };
    return publishThroughContainer(input, steps, this.timing);
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = this.api(this.credentials(credentials));
    const res = await api.call(
      'GET',
      `/${encodeURIComponent(ref.platformPostId)}/insights`,
      { metric: this.network.insights },
      'content',
    );
    const values = insightValues(res.data);
    return { metrics: { ...this.figures(values), raw: { ...values } } };
  }

  protected credentials(raw: unknown): MetaAccountCredentials {
    return parseMetaAccountCredentials(raw, `${this.network.name} credentials`);
  }

  protected api(creds: MetaAccountCredentials): GraphApi {
    return new GraphApi(this.http, {
      name: this.network.name,
      baseUrl: creds.apiBaseUrl,
      version: this.network.version,
      accessToken: creds.accessToken,
    });
  }

  /** The public URL of a published post; the account's page when the network does not give it. */
  protected async permalink(api: GraphApi, creds: MetaAccountCredentials, mediaId: string): Promise<string> {
    const fallback = this.profileUrl(creds.username);
    try {
      const res = await api.send('GET', `/${encodeURIComponent(mediaId)}`, { fields: 'permalink' });
      return (res.status === 200 && asString(asObject(res.data)?.permalink)) || fallback;
    } catch {
      return fallback;
    }
  }

  /**
   * Refuses early, as a rate limit, when the account used its 24-hour quota of posts (or of replies
   * for a thread part, where the network counts them apart), which the network enforces on publish.
   */
  private async checkQuota(api: GraphApi, userId: string, replyPart: boolean): Promise<void> {
    const { name, quota } = this.network;
    const reply = quota.replies && replyPart;
    const res = await api.send('GET', `/${userId}/${quota.edge}`, {
      fields: quota.replies ? 'quota_usage,config,reply_quota_usage,reply_config' : 'quota_usage,config',
    });
    if (res.status !== 200 || graphError(res.data)) {
      const failure = mapGraphFailure(name, res.status, res.headers, res.data, 'content');
      if (failure.transient || failure instanceof CredentialsRevokedError) throw failure;
      return; // the quota could not be read: publishing enforces it anyway
    }
    const entry = asObject(asArray(asObject(res.data)?.data)?.[0]);
    const used = asNumber(entry?.[reply ? 'reply_quota_usage' : 'quota_usage']);
    const total =
      asNumber(asObject(entry?.[reply ? 'reply_config' : 'config'])?.quota_total) ??
      (reply ? undefined : quota.defaultDailyPosts);
    if (used !== undefined && total !== undefined && used >= total) {
      throw new TransientProviderError(
        `${name} publishing limit reached: ${used} of ${total} ${reply ? 'replies' : 'posts'} in 24 hours`,
        undefined,
        quota.retrySeconds,
        true,
      );
    }
  }

  /**
   * A post with a video: containers created one by one (carousel items, then the carousel) and read
   * once per attempt; the network's processing is waited for by the publisher's delayed polls.
   */
  private videoSteps(api: GraphApi, userId: string, post: PublishInput, input: PublishInput): VideoContainerSteps {
    const { carouselKind } = this.network;
    return {
      items: post.media.length,
      pollMs: this.timing.videoPollMs ?? DEFAULT_VIDEO_POLL_MS,
      createItem: async (index) => {
        const media = post.media[index];
        const params = isVideoMedia(media)
          ? await this.videoParams(media, 'item', input)
          : await this.imageParams(media);
        return this.newContainer(api, userId, { ...params, is_carousel_item: true }, 'media');
      },
      createCarousel: (children) =>
        this.newContainer(
          api,
          userId,
          { media_type: 'CAROUSEL', children: children.join(','), ...this.postParams(input) },
          carouselKind,
        ),
    };
  }

  private async newContainer(api: GraphApi, userId: string, params: GraphParams, kind: CallKind): Promise<string> {
    const { name, containerEdge } = this.network;
    const res = await api.call('POST', `/${userId}/${containerEdge}`, params, kind);
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError(`${name} created a container but returned no id`, res.status);
    return id;
  }

  private async createContainer(
    api: GraphApi,
    userId: string,
    input: PublishInput,
    original: PublishInput,
  ): Promise<string> {
    const { name, textPosts, carouselKind } = this.network;
    const create = (params: GraphParams, kind: CallKind) => this.newContainer(api, userId, params, kind);
    const post = this.postParams(input);
    if (input.media.length === 1 && isVideoMedia(input.media[0])) {
      return create({ ...(await this.videoParams(input.media[0], 'single', original)), ...post }, 'media');
    }
    if (input.media.length === 0 && textPosts) {
      return create({ media_type: 'TEXT', ...post, text: input.content }, 'content');
    }
    if (input.media.length === 1) return create({ ...(await this.imageParams(input.media[0])), ...post }, 'media');
    const children: string[] = [];
    for (const media of input.media) {
      children.push(await create({ ...(await this.imageParams(media)), is_carousel_item: true }, 'media'));
    }
    // Each item must be processed before the carousel is created from it.
    const item = { name, mediaError: true, status: (id: string) => this.containerStatus(api, id) };
    for (const child of children) await waitUntilFinished(item, child, this.timing);
    return create({ media_type: 'CAROUSEL', children: children.join(','), ...post }, carouselKind);
  }

  private async containerStatus(api: GraphApi, id: string): Promise<ContainerState> {
    const { name } = this.network;
    const { statusField, errorField, kind } = this.network.containerStatus;
    const res = await api.send('GET', `/${encodeURIComponent(id)}`, { fields: `${statusField},${errorField}` });
    const error = graphError(res.data);
    if (res.status === 404 || (error?.code === 100 && res.status < 500)) return { status: 'GONE', error: null };
    if (res.status !== 200 || error) throw mapGraphFailure(name, res.status, res.headers, res.data, kind);
    const data = asObject(res.data);
    const status = asString(data?.[statusField]);
    const known = ['FINISHED', 'IN_PROGRESS', 'ERROR', 'EXPIRED', 'PUBLISHED'] as const;
    return { status: known.find((s) => s === status) ?? 'IN_PROGRESS', error: asString(data?.[errorField]) ?? null };
  }
}
