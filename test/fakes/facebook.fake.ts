import type { FakeReply, FakeRequest } from './fake-http-server';
import {
  FakeMetaPost,
  FakeMetaToken,
  MetaFakeAccount,
  MetaFakeOptions,
  MetaGraphFake,
  REVOKED_TOKEN,
  graphError,
} from './meta-graph-server';
import { oauthContractFake, type ProviderContractFake } from './provider-contract';

/**
 * A local Facebook Graph API for Pages: the login dialog (consents at once), the code exchange and
 * the long-lived exchange (fb_exchange_token) on GET /oauth/access_token, /me, /me/accounts (the
 * Pages with their tasks and Page access tokens), Page posts (/feed with message, link and
 * attached_media), photos (downloaded from `url`, published or not), the Page's published posts,
 * post fields (reactions, comments, shares summaries) and post insights. Page calls need that
 * Page's token. Errors are Graph bodies; a repeated message is refused as a duplicate (#506).
 */
export const FACEBOOK_ROUTES = {
  authorize: 'GET /v:version/dialog/oauth',
  token: 'GET /v:version/oauth/access_token',
  me: 'GET /v:version/me',
  accounts: 'GET /v:version/me/accounts',
  object: 'GET /v:version/:id',
  feed: 'POST /v:version/:page/feed',
  photos: 'POST /v:version/:page/photos',
  publishedPosts: 'GET /v:version/:page/published_posts',
  insights: 'GET /v:version/:id/insights',
  comment: 'POST /v:version/:id/comments',
  comments: 'GET /v:version/:id/comments',
} as const;

export interface FakeFacebookPage {
  id: string;
  name: string;
  username: string;
  /** Tasks the user may perform on the Page (CREATE_CONTENT allows publishing). */
  tasks: string[];
}

export interface FacebookFakeOptions extends MetaFakeOptions {
  user?: MetaFakeAccount;
  pages?: FakeFacebookPage[];
}

interface FakePhoto {
  id: string;
  pageId: string;
  published: boolean;
  image: FakeMetaPost['images'][number];
  /** `alt_text_custom` as sent. */
  altText: string | null;
}

export class FacebookFake extends MetaGraphFake {
  protected readonly acceptedImageTypes = ['image/jpeg', 'image/png', 'image/gif'];
  readonly pages: FakeFacebookPage[];
  readonly photos = new Map<string, FakePhoto>();

  constructor(opts: FacebookFakeOptions = {}) {
    super([opts.user ?? { id: '10150000000000001', username: 'contract.fb', name: 'Contract User' }], {
      clientId: 'facebook-app-id',
      clientSecret: 'facebook-app-secret',
      ...opts,
    });
    this.pages = opts.pages ?? [
      { id: '110000000000001', name: 'Contract Page', username: 'contractpage', tasks: ['CREATE_CONTENT', 'MANAGE'] },
    ];
  }

  /** Environment for the app: client credentials and both hosts pointed at this fake. */
  appEnv(): Record<string, string> {
    return {
      FACEBOOK_CLIENT_ID: this.clientId,
      FACEBOOK_CLIENT_SECRET: this.clientSecret,
      FACEBOOK_AUTH_BASE_URL: this.baseUrl,
      FACEBOOK_API_BASE_URL: this.baseUrl,
    };
  }

  /** The Page's tokens expire now (the session was invalidated: #190, subcode 463). */
  expirePageTokens(pageId: string): void {
    for (const token of this.tokens.values()) if (token.pageId === pageId) token.expiresAt = Date.now() - 1000;
  }

  protected routeOf(method: string, path: string): string | undefined {
    const graph = this.graphPath(path);
    if (!graph) return undefined;
    const [first, edge, ...rest] = graph.segments;
    if (rest.length > 0 || !first) return undefined;
    if (method === 'GET' && first === 'dialog' && edge === 'oauth') return FACEBOOK_ROUTES.authorize;
    if (method === 'GET' && first === 'oauth' && edge === 'access_token') return FACEBOOK_ROUTES.token;
    if (method === 'GET' && first === 'me')
      return edge === 'accounts' ? FACEBOOK_ROUTES.accounts : edge ? undefined : FACEBOOK_ROUTES.me;
    if (!edge) return method === 'GET' ? FACEBOOK_ROUTES.object : undefined;
    const routes: Record<string, string> = {
      'POST feed': FACEBOOK_ROUTES.feed,
      'POST photos': FACEBOOK_ROUTES.photos,
      'GET published_posts': FACEBOOK_ROUTES.publishedPosts,
      'GET insights': FACEBOOK_ROUTES.insights,
      'POST comments': FACEBOOK_ROUTES.comment,
      'GET comments': FACEBOOK_ROUTES.comments,
    };
    return routes[`${method} ${edge}`];
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    const params = this.params(req);
    if (req.route === FACEBOOK_ROUTES.authorize) return this.authorize(req);
    if (req.route === FACEBOOK_ROUTES.token) return this.token(params);
    const throttled = this.takeThrottle(req);
    if (throttled) return throttled;
    const auth = this.authenticate(req);
    if ('error' in auth) return auth.error;
    const { token } = auth;
    const [first] = this.graphPath(req.path)!.segments;
    switch (req.route) {
      case FACEBOOK_ROUTES.me: {
        const user = this.accounts[0];
        return token.pageId
          ? { status: 200, body: this.pageJson(this.page(token.pageId)!) }
          : { status: 200, body: { id: user.id, name: user.name } };
      }
      case FACEBOOK_ROUTES.accounts: {
        if (token.kind === 'page') return graphError(400, 100, '(#100) Tried accessing nonexisting field (accounts)');
        const data = this.pages.map((p) => ({
          ...this.pageJson(p),
          access_token: this.pageToken(token, p.id),
          category: 'Product/service',
          tasks: p.tasks,
        }));
        return { status: 200, body: { data, paging: { cursors: { before: 'MA==', after: 'MQ==' } } } };
      }
      case FACEBOOK_ROUTES.object: {
        const page = this.page(first);
        if (page) return { status: 200, body: this.pageJson(page) };
        const post = this.posts.find((p) => p.id === first);
        if (!post)
          return graphError(400, 100, `Unsupported get request. Object with ID '${first}' does not exist`, {
            subcode: 33,
          });
        if (token.pageId !== post.ownerId)
          return graphError(400, 10, '(#10) This endpoint requires the Page access token');
        return { status: 200, body: this.postJson(post, params.get('fields') ?? '') };
      }
      case FACEBOOK_ROUTES.comment:
      case FACEBOOK_ROUTES.comments: {
        // Comments on a Page post, as the Page (its token): `message` in, `{id}` out; listed newest last.
        const post = this.posts.find((p) => p.id === first);
        if (!post) return graphError(400, 100, `Object with ID '${first}' does not exist`, { subcode: 33 });
        if (!token.pageId) return graphError(400, 10, '(#10) This endpoint requires the Page access token');
        if (req.route === FACEBOOK_ROUTES.comments) {
          const data = this.comments
            .filter((c) => c.objectId === post.id)
            .map((c) => ({
              id: c.id,
              message: c.message,
              from: { id: c.fromId },
              created_time: new Date(c.createdAt).toISOString(),
              permalink_url: `https://www.facebook.com/${c.id}`,
            }));
          return { status: 200, body: { data } };
        }
        const message = params.get('message') ?? '';
        if (!message) return graphError(400, 100, '(#100) Missing message');
        return { status: 200, body: { id: this.addComment(post.id, token.pageId, message).id } };
      }
      case FACEBOOK_ROUTES.insights: {
        const post = this.posts.find((p) => p.id === first && p.ownerId === token.pageId);
        if (!post) return graphError(400, 100, `Object with ID '${first}' does not exist`, { subcode: 33 });
        const names = (params.get('metric') ?? '').split(',').filter(Boolean);
        const unknown = names.find((n) => n !== 'post_media_view');
        if (unknown) return graphError(400, 100, `(#100) The value must be a valid insights metric: ${unknown}`);
        return this.insights(post, names, { post_media_view: post.counts.impressions });
      }
    }
    // Page edges: the Page's own token only.
    const page = this.page(first);
    if (!page)
      return graphError(400, 100, `Unsupported post request. Object with ID '${first}' does not exist`, {
        subcode: 33,
      });
    if (token.pageId !== page.id) {
      return graphError(
        403,
        200,
        "(#200) The user hasn't authorized the application to perform this action; use a Page access token",
      );
    }
    switch (req.route) {
      case FACEBOOK_ROUTES.feed:
        return this.feed(page, params);
      case FACEBOOK_ROUTES.photos:
        return this.photo(page, params);
      case FACEBOOK_ROUTES.publishedPosts: {
        const since = Number(params.get('since') ?? 0) * 1000;
        const limit = Math.min(Number(params.get('limit') ?? 25), 100);
        const items = this.posts
          .filter((p) => p.ownerId === page.id && p.createdAt >= since)
          .reverse()
          .slice(0, limit);
        return {
          status: 200,
          body: { data: items.map((p) => this.postJson(p, 'id,message,created_time,permalink_url')) },
        };
      }
      default:
        return graphError(400, 100, `Unknown path components: ${req.path}`);
    }
  }

  private token(params: URLSearchParams): FakeReply {
    if (params.get('grant_type') === 'fb_exchange_token') {
      if (params.get('client_id') !== this.clientId || params.get('client_secret') !== this.clientSecret) {
        return graphError(400, 101, 'Error validating client secret.', { type: 'OAuthException' });
      }
      const short = this.tokens.get(params.get('fb_exchange_token') ?? '');
      if (!short || short.kind === 'page') return REVOKED_TOKEN;
      this.exchangeCount++;
      const token = this.issueToken(short.userId, 'long', short.scopes);
      return {
        status: 200,
        body: { access_token: token, token_type: 'bearer', expires_in: this.opts.longLivedTtlSeconds ?? 5_183_944 },
      };
    }
    const redeemed = this.redeemCode(params);
    if ('error' in redeemed) return redeemed.error;
    const token = this.issueToken(redeemed.grant.userId, 'short', redeemed.grant.scope.split(','));
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: 5183 } };
  }

  /** A Page token derived from a user token: from a long-lived one it does not expire. */
  private pageToken(user: FakeMetaToken, pageId: string): string {
    const raw = this.issueToken(user.userId, 'page', user.scopes);
    const token = this.tokens.get(raw)!;
    token.pageId = pageId;
    token.expiresAt = user.kind === 'long' ? null : user.expiresAt;
    return raw;
  }

  private async feed(page: FakeFacebookPage, params: URLSearchParams): Promise<FakeReply> {
    const message = params.get('message') ?? '';
    const link = params.get('link');
    let attached: string[];
    try {
      attached = (JSON.parse(params.get('attached_media') ?? '[]') as Array<{ media_fbid?: string }>).map((m) =>
        String(m.media_fbid),
      );
    } catch {
      return graphError(400, 100, '(#100) attached_media must be an array of objects with media_fbid');
    }
    if (!message && !link && attached.length === 0) {
      return graphError(400, 100, '(#100) Missing message or attachment');
    }
    const photos: FakePhoto[] = [];
    for (const id of attached) {
      const photo = this.photos.get(id);
      if (!photo || photo.pageId !== page.id || photo.published) {
        return graphError(400, 100, `(#100) Invalid attached media ${id}`);
      }
      photos.push(photo);
    }
    const duplicate = this.refuseDuplicate(page, message);
    if (duplicate) return duplicate;
    for (const photo of photos) photo.published = true;
    const post = this.createPost(page, message, link, photos);
    return this.afterPublish({ status: 200, body: { id: post.id } });
  }

  private async photo(page: FakeFacebookPage, params: URLSearchParams): Promise<FakeReply> {
    const url = params.get('url');
    if (!url) return graphError(400, 324, '(#324) Requires upload file');
    const published = params.get('published') !== 'false';
    const caption = params.get('caption') ?? params.get('message') ?? '';
    if (published) {
      const duplicate = this.refuseDuplicate(page, caption);
      if (duplicate) return duplicate;
    }
    const image = await this.download(url);
    if (
      image.status !== 200 ||
      !this.acceptedImageTypes.includes(image.contentType) ||
      image.sniffed !== image.contentType
    ) {
      return graphError(400, 324, '(#324) Missing or invalid image file', { subcode: 2069019 });
    }
    const altText = params.get('alt_text_custom');
    const photo: FakePhoto = { id: this.newId(), pageId: page.id, published, image, altText };
    this.photos.set(photo.id, photo);
    if (!published) return { status: 200, body: { id: photo.id } };
    const post = this.createPost(page, caption, null, [photo]);
    return this.afterPublish({ status: 200, body: { id: photo.id, post_id: post.id } });
  }

  private refuseDuplicate(page: FakeFacebookPage, message: string): FakeReply | undefined {
    if (!message) return undefined;
    const last = this.posts.filter((p) => p.ownerId === page.id).at(-1);
    if (last && last.text === message) return graphError(400, 506, '(#506) Duplicate status message');
    return undefined;
  }

  private createPost(page: FakeFacebookPage, text: string, link: string | null, photos: FakePhoto[]) {
    const id = `${page.id}_${this.newId()}`;
    const post: FakeMetaPost = {
      id,
      ownerId: page.id,
      text,
      images: photos.map((p) => p.image),
      altTexts: photos.map((p) => p.altText),
      link,
      replyToId: null,
      containerId: null,
      createdAt: Date.now(),
      permalink: `https://www.facebook.com/${page.username}/posts/${id.split('_')[1]}`,
      counts: { likes: 0, reposts: 0, replies: 0, impressions: 0 },
    };
    this.posts.push(post);
    this.publishLog.push({ containerId: null, mediaId: id, at: Date.now() });
    return post;
  }

  private page(id: string): FakeFacebookPage | undefined {
    return this.pages.find((p) => p.id === id);
  }

  private pageJson(page: FakeFacebookPage) {
    return {
      id: page.id,
      name: page.name,
      username: page.username,
      link: `https://www.facebook.com/${page.username}`,
      picture: { data: { url: `${this.baseUrl}/pictures/${page.id}.jpg`, is_silhouette: false } },
    };
  }

  private postJson(post: FakeMetaPost, fields: string) {
    const body: Record<string, unknown> = { id: post.id };
    const want = (f: string) => fields.includes(f);
    if (want('message')) body.message = post.text;
    if (want('created_time')) body.created_time = new Date(post.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000');
    if (want('permalink_url')) body.permalink_url = post.permalink;
    if (want('reactions'))
      body.reactions = { data: [], summary: { total_count: post.counts.likes, viewer_reaction: 'NONE' } };
    if (want('comments'))
      body.comments = { data: [], summary: { order: 'ranked', total_count: post.counts.replies, can_comment: true } };
    if (want('shares') && post.counts.reposts > 0) body.shares = { count: post.counts.reposts };
    return body;
  }
}

/** FacebookFake for the shared provider contract suite: a user managing one Page (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new FacebookFake();
  const contract = oauthContractFake(fake, {
    publishRoute: FACEBOOK_ROUTES.feed,
    rejectStatus: 400,
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.id,
        text: p.text,
        mediaCount: p.images.length,
        mediaAltTexts: p.altTexts,
        inReplyTo: null,
      })),
  });
  return contract;
}
