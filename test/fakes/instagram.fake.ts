import type { FakeReply, FakeRequest } from './fake-http-server';
import {
  FakeMetaPost,
  FakeVideoRefusal,
  MetaFakeAccount,
  MetaFakeOptions,
  MetaGraphFake,
  graphError,
} from './meta-graph-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { instagramDescription } from './descriptions/networks';

/**
 * A local Instagram API with Instagram Login (www.instagram.com's authorization window,
 * api.instagram.com's code exchange, graph.instagram.com): the code exchange answering
 * `{data: [{access_token, user_id, permissions}]}`, the long-lived exchange (ig_exchange_token) and
 * refresh (ig_refresh_token), /me, media containers (an image downloaded from `image_url`, which must
 * be a JPEG; REELS and carousel VIDEO items downloaded from `video_url`, IN_PROGRESS for a few reads
 * then FINISHED or ERROR with the error code in `status`; carousel items; CAROUSEL), their status_code,
 * EXPIRED containers, media_publish, the account's media,
 * content_publishing_limit, permalinks and media insights. Errors are Graph bodies.
 */
export const INSTAGRAM_ROUTES = {
  authorize: 'GET /oauth/authorize',
  token: 'POST /oauth/access_token',
  exchange: 'GET /access_token',
  refresh: 'GET /refresh_access_token',
  me: 'GET /v:version/me',
  createContainer: 'POST /v:version/:user/media',
  listMedia: 'GET /v:version/:user/media',
  publish: 'POST /v:version/:user/media_publish',
  publishingLimit: 'GET /v:version/:user/content_publishing_limit',
  object: 'GET /v:version/:id',
  insights: 'GET /v:version/:id/insights',
  comment: 'POST /v:version/:id/comments',
  comments: 'GET /v:version/:id/comments',
} as const;

export interface InstagramFakeOptions extends MetaFakeOptions {
  accounts?: MetaFakeAccount[];
  /** Posts an account may publish in 24 hours (Instagram: 100). */
  quotaTotal?: number;
}

export class InstagramFake extends MetaGraphFake {
  /** Instagram publishes JPEG only. */
  protected readonly acceptedImageTypes = ['image/jpeg'];
  quotaTotal: number;

  constructor(opts: InstagramFakeOptions = {}) {
    super(opts.accounts ?? [{ id: '17841400000000001', username: 'contract_ig', name: 'Contract IG' }], {
      clientId: 'instagram-app-id',
      clientSecret: 'instagram-app-secret',
      // Reels: 3 s to 15 minutes, at most 300 MB.
      maxVideoBytes: 300 * 1024 * 1024,
      maxVideoSeconds: 900,
      minVideoSeconds: 3,
      ...opts,
    });
    this.quotaTotal = opts.quotaTotal ?? 100;
    // Every Graph call is checked against Meta's node specs; the OAuth window and token endpoints are
    // documented apart from the Graph nodes ("Business Login for Instagram"), so they pass unchecked.
    this.checkAgainst(
      instagramDescription((id) => this.nodeOf(id)),
      {
        refuse: (problems) => graphError(400, 100, problems.join('; '), { type: 'OAuthException' }),
        unchecked: (req) =>
          [
            INSTAGRAM_ROUTES.authorize,
            INSTAGRAM_ROUTES.token,
            INSTAGRAM_ROUTES.exchange,
            INSTAGRAM_ROUTES.refresh,
          ].includes(req.route as never),
      },
    );
  }

  /** The node type of an object this fake holds, as Meta's specs name it. */
  private nodeOf(id: string): string | undefined {
    if (id === 'me' || this.accounts.some((a) => a.id === id)) return 'IGUserForIGOnlyAPI';
    if (this.containers.has(id)) return 'ShadowIGMediaBuilder';
    if (this.posts.some((p) => p.id === id)) return 'IGMediaForIGOnlyAPI';
    return undefined;
  }

  /** Environment for the app: client credentials and the three hosts pointed at this fake. */
  appEnv(): Record<string, string> {
    return {
      INSTAGRAM_CLIENT_ID: this.clientId,
      INSTAGRAM_CLIENT_SECRET: this.clientSecret,
      INSTAGRAM_AUTH_BASE_URL: this.baseUrl,
      INSTAGRAM_TOKEN_BASE_URL: this.baseUrl,
      INSTAGRAM_API_BASE_URL: this.baseUrl,
    };
  }

  permalinkOf(id: string): string {
    return `https://www.instagram.com/p/C${id}/`;
  }

  /** Instagram reports a failed upload in `status` with its error code (2207026: unsupported video; 2207082: duration). */
  protected override videoRefusal(reason: FakeVideoRefusal): string {
    const code =
      reason === 'duration' ? 2207082 : reason === 'size' ? 2207026 : reason === 'download' ? 2207003 : 2207026;
    return `Media upload has failed with error code ${code}`;
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/oauth/authorize') return INSTAGRAM_ROUTES.authorize;
    if (method === 'POST' && path === '/oauth/access_token') return INSTAGRAM_ROUTES.token;
    if (method === 'GET' && path === '/access_token') return INSTAGRAM_ROUTES.exchange;
    if (method === 'GET' && path === '/refresh_access_token') return INSTAGRAM_ROUTES.refresh;
    const graph = this.graphPath(path);
    if (!graph) return undefined;
    const [first, edge, ...rest] = graph.segments;
    if (rest.length > 0 || !first) return undefined;
    if (!edge) return method === 'GET' ? (first === 'me' ? INSTAGRAM_ROUTES.me : INSTAGRAM_ROUTES.object) : undefined;
    const routes: Record<string, string> = {
      'POST media': INSTAGRAM_ROUTES.createContainer,
      'GET media': INSTAGRAM_ROUTES.listMedia,
      'POST media_publish': INSTAGRAM_ROUTES.publish,
      'GET content_publishing_limit': INSTAGRAM_ROUTES.publishingLimit,
      'GET insights': INSTAGRAM_ROUTES.insights,
      'POST comments': INSTAGRAM_ROUTES.comment,
      'GET comments': INSTAGRAM_ROUTES.comments,
    };
    return routes[`${method} ${edge}`];
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    const params = this.params(req);
    switch (req.route) {
      case INSTAGRAM_ROUTES.authorize:
        return this.authorize(req);
      case INSTAGRAM_ROUTES.token: {
        if (params.get('grant_type') !== 'authorization_code') {
          return graphError(400, 100, 'Unsupported grant_type', { type: 'OAuthException' });
        }
        const redeemed = this.redeemCode(params);
        if ('error' in redeemed) return redeemed.error;
        const scopes = redeemed.grant.scope.split(',');
        const token = this.issueToken(redeemed.grant.userId, 'short', scopes);
        return {
          status: 200,
          body: { data: [{ access_token: token, user_id: redeemed.grant.userId, permissions: scopes.join(',') }] },
        };
      }
      case INSTAGRAM_ROUTES.exchange:
        return this.exchangeLongLived(params, 'ig_exchange_token');
      case INSTAGRAM_ROUTES.refresh:
        return this.refreshLongLived(params, 'ig_refresh_token');
    }
    const throttled = this.takeThrottle(req);
    if (throttled) return throttled;
    const auth = this.authenticate(req);
    if ('error' in auth) return auth.error;
    const userId = auth.token.userId;
    const [first] = this.graphPath(req.path)!.segments;
    const ownEdge = ![
      INSTAGRAM_ROUTES.me,
      INSTAGRAM_ROUTES.object,
      INSTAGRAM_ROUTES.insights,
      INSTAGRAM_ROUTES.comment,
      INSTAGRAM_ROUTES.comments,
    ].includes(req.route as never);
    if (ownEdge && first !== userId && first !== 'me') {
      return graphError(400, 100, `(#100) Unsupported request: object ${first} cannot be accessed`);
    }
    switch (req.route) {
      case INSTAGRAM_ROUTES.comment:
      case INSTAGRAM_ROUTES.comments: {
        // Comments on a published media: `message` in, `{id}` out; listed with `text` and `from`.
        const media = this.posts.find((p) => p.id === first);
        if (!media) return graphError(400, 100, `(#100) Unsupported request: object ${first} does not exist`);
        if (req.route === INSTAGRAM_ROUTES.comments) {
          const data = this.comments
            .filter((c) => c.objectId === media.id)
            .map((c) => ({
              id: c.id,
              text: c.message,
              from: { id: c.fromId },
              timestamp: new Date(c.createdAt).toISOString(),
            }));
          return { status: 200, body: { data } };
        }
        const message = params.get('message') ?? '';
        if (!message) return graphError(400, 100, '(#100) The parameter message is required');
        return { status: 200, body: { id: this.addComment(media.id, userId, message).id } };
      }
      case INSTAGRAM_ROUTES.me: {
        const account = this.accounts.find((a) => a.id === userId)!;
        return {
          status: 200,
          body: {
            id: `app-scoped-${account.id}`,
            user_id: account.id,
            username: account.username,
            name: account.name,
            account_type: 'BUSINESS',
            profile_picture_url: `${this.baseUrl}/pictures/${account.id}.jpg`,
          },
        };
      }
      case INSTAGRAM_ROUTES.createContainer:
        return this.create(userId, params);
      case INSTAGRAM_ROUTES.publish: {
        if (this.usage(userId).posts >= this.quotaTotal) {
          return graphError(400, 9, 'Application request limit reached', {
            subcode: 2207042,
            type: 'OAuthException',
          });
        }
        return this.publishContainer(userId, params.get('creation_id') ?? '', (id) => this.permalinkOf(id));
      }
      case INSTAGRAM_ROUTES.publishingLimit:
        return {
          status: 200,
          body: {
            data: [
              {
                quota_usage: this.usage(userId).posts,
                config: { quota_total: this.quotaTotal, quota_duration: 86400 },
              },
            ],
          },
        };
      case INSTAGRAM_ROUTES.listMedia: {
        const limit = Math.min(Number(params.get('limit') ?? 25), 100);
        const items = this.posts
          .filter((p) => p.ownerId === userId)
          .reverse()
          .slice(0, limit);
        return { status: 200, body: { data: items.map((p) => this.mediaJson(p)), paging: { cursors: {} } } };
      }
      case INSTAGRAM_ROUTES.object: {
        const container = this.containers.get(first);
        if (container && container.ownerId === userId) {
          const status = this.readStatus(container);
          return {
            status: 200,
            body: {
              id: first,
              status_code: status,
              status:
                status === 'ERROR'
                  ? `Error: ${container.errorMessage}`
                  : status === 'FINISHED'
                    ? 'Finished: Media has been uploaded and it is ready to be published.'
                    : status,
            },
          };
        }
        const post = this.posts.find((p) => p.id === first && p.ownerId === userId);
        if (post) return { status: 200, body: this.mediaJson(post) };
        return graphError(400, 100, `Unsupported get request. Object with ID '${first}' does not exist`, {
          subcode: 33,
        });
      }
      case INSTAGRAM_ROUTES.insights: {
        const post = this.posts.find((p) => p.id === first && p.ownerId === userId);
        if (!post) return graphError(400, 100, `Object with ID '${first}' does not exist`, { subcode: 33 });
        const names = (params.get('metric') ?? '').split(',').filter(Boolean);
        const unknown = names.find((n) => !['views', 'likes', 'comments', 'shares', 'saved', 'reach'].includes(n));
        if (unknown) return graphError(400, 100, `(#100) metric[0] must be one of the following values: ...`);
        const c = post.counts;
        return this.insights(post, names, {
          views: c.impressions,
          likes: c.likes,
          comments: c.replies,
          shares: c.reposts,
          saved: c.saves ?? 0,
          reach: Math.floor(c.impressions * 0.8),
        });
      }
      default:
        return graphError(400, 100, `Unknown path components: ${req.path}`);
    }
  }

  private async create(userId: string, params: URLSearchParams): Promise<FakeReply> {
    const mediaType = params.get('media_type') ?? 'IMAGE';
    const caption = params.get('caption') ?? '';
    if ([...caption].length > 2200) {
      return graphError(400, 100, '(#100) The caption is longer than 2200 characters', { subcode: 2207044 });
    }
    if ((caption.match(/#[\p{L}\p{N}_]+/gu)?.length ?? 0) > 30) {
      return graphError(400, 100, '(#100) The caption has more than 30 hashtags', { subcode: 2207045 });
    }
    const children = (params.get('children') ?? '').split(',').filter(Boolean);
    if (mediaType === 'CAROUSEL') {
      if (children.length < 2 || children.length > 10) {
        return graphError(400, 100, '(#100) A carousel needs 2 to 10 children', { subcode: 2207009 });
      }
      for (const child of children) {
        const item = this.containers.get(child);
        if (!item || !item.isCarouselItem || item.ownerId !== userId || this.readStatus(item) !== 'FINISHED') {
          return graphError(400, 9007, `Media ID ${child} is not available`, { subcode: 2207027 });
        }
      }
    } else if (mediaType === 'REELS' || mediaType === 'VIDEO') {
      if (!params.get('video_url')) return graphError(400, 100, '(#100) The parameter video_url is required.');
      // A video alone is a Reel; VIDEO is a carousel item only.
      if (mediaType === 'VIDEO' && params.get('is_carousel_item') !== 'true') {
        return graphError(400, 100, '(#100) The VIDEO media type is only for carousel items; use REELS', {
          subcode: 2207067,
        });
      }
    } else if (mediaType !== 'IMAGE' || !params.get('image_url')) {
      return graphError(400, 100, '(#100) The parameter image_url is required.');
    }
    const video = mediaType === 'REELS' || mediaType === 'VIDEO';
    const container = await this.createContainer(userId, {
      mediaType,
      text: caption,
      imageUrl: video ? null : params.get('image_url'),
      videoUrl: video ? params.get('video_url') : null,
      coverUrl: params.get('cover_url'),
      shareToFeed: params.get('share_to_feed'),
      altText: params.get('alt_text'),
      isCarouselItem: params.get('is_carousel_item') === 'true',
      children,
    });
    return { status: 200, body: { id: container.id } };
  }

  private mediaJson(post: FakeMetaPost) {
    const owner = this.accounts.find((a) => a.id === post.ownerId)!;
    return {
      id: post.id,
      caption: post.text,
      media_type: post.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : post.mediaType === 'REELS' ? 'VIDEO' : 'IMAGE',
      media_product_type: post.mediaType === 'REELS' ? 'REELS' : 'FEED',
      permalink: post.permalink,
      username: owner.username,
      timestamp: new Date(post.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    };
  }
}

/** InstagramFake for the shared provider contract suite (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new InstagramFake();
  const contract = oauthContractFake(fake, {
    publishRoute: INSTAGRAM_ROUTES.publish,
    rejectStatus: 400,
    videoFixture: 'reel-9x16-4s.mp4',
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.id,
        text: p.text,
        mediaCount: p.images.length + (p.videos?.length ?? 0),
        mediaAltTexts: p.altTexts,
        inReplyTo: null,
      })),
  });
  const described = describedContract(fake, () => {
    const account = fake.accounts[0].id;
    // The image container as the adapter creates it, `image_url` renamed.
    const body = new URLSearchParams({
      imageurl: 'https://cdn.example/p.jpg',
      alt_text: 'alt',
      caption: 'renamed field',
    });
    return {
      method: 'POST',
      url: `${fake.baseUrl}/v25.0/${account}/media`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Bearer ${fake.issueToken()}`,
      },
      body: body.toString(),
      renamed: { from: 'image_url', to: 'imageurl' },
    };
  });
  return { ...contract, requiresMedia: true, described };
}
