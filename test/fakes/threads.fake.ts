import type { FakeReply, FakeRequest } from './fake-http-server';
import { FakeMetaPost, MetaFakeAccount, MetaFakeOptions, MetaGraphFake, graphError } from './meta-graph-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { threadsDescription } from './descriptions/networks';

/**
 * A local Threads API (graph.threads.net and the threads.com authorization window): the code
 * exchange (POST /oauth/access_token, short-lived), the long-lived exchange (th_exchange_token) and
 * refresh (th_refresh_token), /me, media containers (TEXT, IMAGE downloaded from `image_url`, VIDEO
 * downloaded from `video_url`, IN_PROGRESS for a few reads, then FINISHED, or ERROR with Threads'
 * `error_message` such as INVALID_DURATION; carousel items, CAROUSEL, `reply_to_id`), their status,
 * EXPIRED containers, threads_publish, the profile's threads
 * and replies, threads_publishing_limit, permalinks and media insights. Errors are Graph bodies.
 */
export const THREADS_ROUTES = {
  authorize: 'GET /oauth/authorize',
  token: 'POST /oauth/access_token',
  exchange: 'GET /access_token',
  refresh: 'GET /refresh_access_token',
  me: 'GET /v1.0/me',
  createContainer: 'POST /v1.0/:user/threads',
  listThreads: 'GET /v1.0/:user/threads',
  listReplies: 'GET /v1.0/:user/replies',
  publish: 'POST /v1.0/:user/threads_publish',
  publishingLimit: 'GET /v1.0/:user/threads_publishing_limit',
  object: 'GET /v1.0/:id',
  insights: 'GET /v1.0/:id/insights',
} as const;

export interface ThreadsFakeOptions extends MetaFakeOptions {
  accounts?: MetaFakeAccount[];
  /** Posts a profile may publish in 24 hours (Threads: 250). */
  quotaTotal?: number;
}

export class ThreadsFake extends MetaGraphFake {
  protected readonly acceptedImageTypes = ['image/jpeg', 'image/png'];
  readonly quotaTotal: number;

  constructor(opts: ThreadsFakeOptions = {}) {
    super(opts.accounts ?? [{ id: '27000000000000001', username: 'contract_threads', name: 'Contract Threads' }], {
      clientId: 'threads-app-id',
      clientSecret: 'threads-app-secret',
      // Threads video: at most 1 GB and 5 minutes.
      maxVideoBytes: 1024 * 1024 * 1024,
      maxVideoSeconds: 300,
      ...opts,
    });
    this.quotaTotal = opts.quotaTotal ?? 250;
    // Every Graph call is checked against the Threads API reference; the authorization window and the
    // token endpoints ("Get Access Tokens and Permissions") pass unchecked.
    this.checkAgainst(
      threadsDescription((id) => this.nodeOf(id)),
      {
        refuse: (problems) => graphError(400, 100, problems.join('; '), { type: 'OAuthException' }),
        unchecked: (req) =>
          [THREADS_ROUTES.authorize, THREADS_ROUTES.token, THREADS_ROUTES.exchange, THREADS_ROUTES.refresh].includes(
            req.route as never,
          ),
      },
    );
  }

  /** The node type of an object this fake holds, in the reference's terms. */
  private nodeOf(id: string): string | undefined {
    if (id === 'me' || this.accounts.some((a) => a.id === id)) return 'ThreadsUser';
    if (this.containers.has(id)) return 'ThreadsMediaContainer';
    if (this.posts.some((p) => p.id === id)) return 'ThreadsMedia';
    return undefined;
  }

  /** Environment for the app: client credentials and both hosts pointed at this fake. */
  appEnv(): Record<string, string> {
    return {
      THREADS_CLIENT_ID: this.clientId,
      THREADS_CLIENT_SECRET: this.clientSecret,
      THREADS_AUTH_BASE_URL: this.baseUrl,
      THREADS_API_BASE_URL: this.baseUrl,
    };
  }

  permalinkOf(id: string): string {
    const post = this.posts.find((p) => p.id === id);
    const owner = this.accounts.find((a) => a.id === post?.ownerId) ?? this.accounts[0];
    return `https://www.threads.com/@${owner.username}/post/T${id}`;
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/oauth/authorize') return THREADS_ROUTES.authorize;
    if (method === 'POST' && path === '/oauth/access_token') return THREADS_ROUTES.token;
    if (method === 'GET' && path === '/access_token') return THREADS_ROUTES.exchange;
    if (method === 'GET' && path === '/refresh_access_token') return THREADS_ROUTES.refresh;
    const graph = this.graphPath(path);
    if (!graph || graph.version !== 'v1.0') return undefined;
    const [first, edge, ...rest] = graph.segments;
    if (rest.length > 0 || !first) return undefined;
    if (!edge) return method === 'GET' ? (first === 'me' ? THREADS_ROUTES.me : THREADS_ROUTES.object) : undefined;
    const key = `${method} ${edge}`;
    const routes: Record<string, string> = {
      'POST threads': THREADS_ROUTES.createContainer,
      'GET threads': THREADS_ROUTES.listThreads,
      'GET replies': THREADS_ROUTES.listReplies,
      'POST threads_publish': THREADS_ROUTES.publish,
      'GET threads_publishing_limit': THREADS_ROUTES.publishingLimit,
      'GET insights': THREADS_ROUTES.insights,
    };
    return routes[key];
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    const params = this.params(req);
    switch (req.route) {
      case THREADS_ROUTES.authorize:
        return this.authorize(req);
      case THREADS_ROUTES.token: {
        if (params.get('grant_type') !== 'authorization_code') {
          return graphError(400, 100, 'Unsupported grant_type', { type: 'OAuthException' });
        }
        const redeemed = this.redeemCode(params);
        if ('error' in redeemed) return redeemed.error;
        const token = this.issueToken(redeemed.grant.userId, 'short', redeemed.grant.scope.split(','));
        return { status: 200, body: { access_token: token, user_id: Number(redeemed.grant.userId) } };
      }
      case THREADS_ROUTES.exchange:
        return this.exchangeLongLived(params, 'th_exchange_token');
      case THREADS_ROUTES.refresh:
        return this.refreshLongLived(params, 'th_refresh_token');
    }
    const throttled = this.takeThrottle(req);
    if (throttled) return throttled;
    const auth = this.authenticate(req);
    if ('error' in auth) return auth.error;
    const userId = auth.token.userId;
    const [first] = this.graphPath(req.path)!.segments;
    if (
      req.route !== THREADS_ROUTES.me &&
      req.route !== THREADS_ROUTES.object &&
      req.route !== THREADS_ROUTES.insights
    ) {
      if (first !== userId && first !== 'me') {
        return graphError(400, 100, `(#100) Unsupported request: object ${first} cannot be accessed`);
      }
    }
    switch (req.route) {
      case THREADS_ROUTES.me: {
        const account = this.accounts.find((a) => a.id === userId)!;
        return {
          status: 200,
          body: {
            id: account.id,
            username: account.username,
            name: account.name,
            threads_profile_picture_url: `${this.baseUrl}/pictures/${account.id}.jpg`,
          },
        };
      }
      case THREADS_ROUTES.createContainer:
        return this.create(userId, params);
      case THREADS_ROUTES.publish: {
        if (this.usage(userId).posts >= this.quotaTotal) {
          return graphError(400, 4, '(#4) The user has reached the publishing limit of 250 posts in 24 hours', {
            subcode: 2207051,
          });
        }
        return this.publishContainer(userId, params.get('creation_id') ?? '', (id) => this.permalinkOf(id));
      }
      case THREADS_ROUTES.publishingLimit: {
        const usage = this.usage(userId);
        return {
          status: 200,
          body: {
            data: [
              {
                quota_usage: usage.posts,
                config: { quota_total: this.quotaTotal, quota_duration: 86400 },
                reply_quota_usage: usage.replies,
                reply_config: { quota_total: 1000, quota_duration: 86400 },
              },
            ],
          },
        };
      }
      case THREADS_ROUTES.listThreads:
      case THREADS_ROUTES.listReplies: {
        const since = Number(params.get('since') ?? 0) * 1000;
        const limit = Math.min(Number(params.get('limit') ?? 25), 100);
        const replies = req.route === THREADS_ROUTES.listReplies;
        const items = this.posts
          .filter((p) => p.ownerId === userId && Boolean(p.replyToId) === replies && p.createdAt >= since)
          .reverse()
          .slice(0, limit);
        return { status: 200, body: { data: items.map((p) => this.mediaJson(p)), paging: {} } };
      }
      case THREADS_ROUTES.object: {
        const id = first;
        const container = this.containers.get(id);
        if (container && container.ownerId === userId) {
          const status = this.readStatus(container);
          return {
            status: 200,
            body: { id, status, ...(status === 'ERROR' ? { error_message: container.errorMessage } : {}) },
          };
        }
        const post = this.posts.find((p) => p.id === id && p.ownerId === userId);
        if (post) return { status: 200, body: this.mediaJson(post) };
        return graphError(400, 100, `Unsupported get request. Object with ID '${id}' does not exist`, {
          subcode: 33,
        });
      }
      case THREADS_ROUTES.insights: {
        const post = this.posts.find((p) => p.id === first && p.ownerId === userId);
        if (!post) return graphError(400, 100, `Object with ID '${first}' does not exist`, { subcode: 33 });
        const names = (params.get('metric') ?? '').split(',').filter(Boolean);
        const c = post.counts;
        return this.insights(post, names, {
          views: c.impressions,
          likes: c.likes,
          replies: c.replies,
          reposts: c.reposts,
          quotes: c.quotes ?? 0,
        });
      }
      default:
        return graphError(400, 100, `Unknown path components: ${req.path}`);
    }
  }

  private async create(userId: string, params: URLSearchParams): Promise<FakeReply> {
    const mediaType = params.get('media_type') ?? '';
    const text = params.get('text') ?? '';
    if (!['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'].includes(mediaType)) {
      return graphError(400, 100, '(#100) The parameter media_type is required', { type: 'THApiException' });
    }
    if ([...text].length > 500) {
      return graphError(400, 100, '(#100) The text exceeds the 500 character limit', { subcode: 4279009 });
    }
    if (mediaType === 'TEXT' && !text) return graphError(400, 100, '(#100) The parameter text is required');
    const replyToId = params.get('reply_to_id');
    if (replyToId && !this.posts.some((p) => p.id === replyToId)) {
      return graphError(400, 100, `(#100) reply_to_id ${replyToId} does not exist`);
    }
    if (mediaType === 'IMAGE' && !params.get('image_url')) {
      return graphError(400, 100, '(#100) The parameter image_url is required');
    }
    if (mediaType === 'VIDEO' && !params.get('video_url')) {
      return graphError(400, 100, '(#100) The parameter video_url is required');
    }
    const children = (params.get('children') ?? '').split(',').filter(Boolean);
    if (mediaType === 'CAROUSEL') {
      if (children.length < 2 || children.length > 20) {
        return graphError(400, 100, '(#100) A carousel needs 2 to 20 children');
      }
      for (const child of children) {
        const item = this.containers.get(child);
        if (!item || !item.isCarouselItem || item.ownerId !== userId || this.readStatus(item) !== 'FINISHED') {
          return graphError(400, 100, `(#100) Carousel item ${child} is not a finished carousel item`);
        }
      }
    }
    const container = await this.createContainer(userId, {
      mediaType,
      text,
      imageUrl: mediaType === 'IMAGE' ? params.get('image_url') : null,
      videoUrl: mediaType === 'VIDEO' ? params.get('video_url') : null,
      altText: params.get('alt_text'),
      isCarouselItem: params.get('is_carousel_item') === 'true',
      children,
      replyToId,
    });
    return { status: 200, body: { id: container.id } };
  }

  private mediaJson(post: FakeMetaPost) {
    const owner = this.accounts.find((a) => a.id === post.ownerId)!;
    return {
      id: post.id,
      media_product_type: 'THREADS',
      media_type:
        post.mediaType === 'CAROUSEL'
          ? 'CAROUSEL_ALBUM'
          : post.mediaType === 'VIDEO'
            ? 'VIDEO'
            : post.images.length
              ? 'IMAGE'
              : 'TEXT_POST',
      text: post.text,
      permalink: post.permalink,
      username: owner.username,
      timestamp: new Date(post.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
      is_reply: Boolean(post.replyToId),
      ...(post.replyToId ? { replied_to: { id: post.replyToId } } : {}),
    };
  }
}

/** ThreadsFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new ThreadsFake();
  const contract = oauthContractFake(fake, {
    publishRoute: THREADS_ROUTES.publish,
    rejectStatus: 400,
    videoFixture: 'h264-aac-faststart.mp4',
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.id,
        text: p.text,
        mediaCount: p.images.length + (p.videos?.length ?? 0),
        mediaAltTexts: p.altTexts,
        inReplyTo: p.replyToId,
      })),
  });
  const described = describedContract(fake, () => ({
    // The text container as the adapter creates it, `text` renamed.
    method: 'POST',
    url: `${fake.baseUrl}/v1.0/${fake.accounts[0].id}/threads`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Bearer ${fake.issueToken()}`,
    },
    body: new URLSearchParams({ media_type: 'TEXT', message: 'renamed field' }).toString(),
    renamed: { from: 'text', to: 'message' },
  }));
  return { ...contract, described };
}
