import { createHash } from 'node:crypto';
import type { FakeReply, FakeRequest } from './fake-http-server';
import {
  FakeMetaPost,
  FakeMetaToken,
  FakeVideoFetch,
  FakeVideoRefusal,
  MetaFakeAccount,
  MetaFakeOptions,
  MetaGraphFake,
  REVOKED_TOKEN,
  graphError,
  mp4DurationSeconds,
} from './meta-graph-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { facebookDescription } from './descriptions/networks';

/**
 * A local Facebook Graph API for Pages: the login dialog (consents at once), the code exchange and
 * the long-lived exchange (fb_exchange_token) on GET /oauth/access_token, /me, /me/accounts (the
 * Pages with their tasks and Page access tokens), Page posts (/feed with message, link and
 * attached_media), photos (downloaded from `url`, published or not), the Page's published posts,
 * post fields (reactions, comments, shares summaries) and post insights. Video: the Reels publishing
 * flow (`/{page}/video_reels` upload_phase=start, the upload at `upload_url` with a `file_url` header
 * or the bytes, upload_phase=finish with video_state=PUBLISHED; without it the Reel stays a draft),
 * Page videos (`/{page}/videos` with `file_url`), and a video's `status` (uploading, processing and
 * publishing phases: processing for a few reads, then ready and published, or an error phase when the
 * video is refused by size or duration or its processing fails). Page calls need that Page's token.
 * Errors are Graph bodies; a repeated message is refused as a duplicate (#506).
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
  reels: 'POST /v:version/:page/video_reels',
  videos: 'POST /v:version/:page/videos',
  listVideos: 'GET /v:version/:page/videos',
  upload: 'POST /video-upload/:version/:video',
} as const;

/** A video on the fake (a Reel or a Page video) and its progress. */
export interface FakeFacebookVideo {
  id: string;
  pageId: string;
  kind: 'reel' | 'video';
  description: string;
  /** Reels: the bytes arrived (file_url downloaded, or sent). */
  uploaded: boolean;
  /** Reels: upload_phase=finish calls received, and the video_state of the last. */
  finishes: number;
  videoState: string | null;
  fetch: FakeVideoFetch | null;
  /** Why processing failed, as Facebook reports it in the phase's errors. */
  error: { code: number; message: string } | null;
  pollsLeft: number;
  /** The post once published. */
  postId: string | null;
  createdAt: number;
}

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
  readonly videos = new Map<string, FakeFacebookVideo>();
  /** Calls received: Reel upload sessions started, uploads (rupload), Page videos created. */
  reelStarts = 0;
  uploads = 0;
  pageVideoCreates = 0;

  constructor(opts: FacebookFakeOptions = {}) {
    super([opts.user ?? { id: '10150000000000001', username: 'contract.fb', name: 'Contract User' }], {
      clientId: 'facebook-app-id',
      clientSecret: 'facebook-app-secret',
      // Page videos by file_url: at most 1 GB and 20 minutes.
      maxVideoBytes: 1024 * 1024 * 1024,
      maxVideoSeconds: 20 * 60,
      ...opts,
    });
    this.pages = opts.pages ?? [
      { id: '110000000000001', name: 'Contract Page', username: 'contractpage', tasks: ['CREATE_CONTENT', 'MANAGE'] },
    ];
    // Every Graph call is checked against Meta's node specs. The login dialog and the token exchange
    // ("Manually Build a Login Flow") and the upload host of the Reels flow (rupload, "Reels
    // Publishing API") are documented apart from the Graph nodes, so they pass unchecked.
    this.checkAgainst(
      facebookDescription((id) => this.nodeOf(id)),
      {
        refuse: (problems) => graphError(400, 100, problems.join('; '), { type: 'OAuthException' }),
        unchecked: (req) =>
          [FACEBOOK_ROUTES.authorize, FACEBOOK_ROUTES.token, FACEBOOK_ROUTES.upload].includes(req.route as never),
      },
    );
  }

  /** The node type of an object this fake holds, as Meta's specs name it. */
  private nodeOf(id: string): string | undefined {
    if (id === 'me' || this.accounts.some((a) => a.id === id)) return 'User';
    if (this.pages.some((p) => p.id === id)) return 'Page';
    if (this.posts.some((p) => p.id === id)) return 'PagePost';
    if (this.photos.has(id)) return 'Photo';
    if (this.videos.has(id)) return 'AdVideo';
    return undefined;
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

  /** Videos of a Page, oldest first. */
  videosOf(pageId: string): FakeFacebookVideo[] {
    return [...this.videos.values()].filter((v) => v.pageId === pageId);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'POST' && /^\/video-upload\/v\d+\.\d+\/\d+$/.test(path)) return FACEBOOK_ROUTES.upload;
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
      'POST video_reels': FACEBOOK_ROUTES.reels,
      'POST videos': FACEBOOK_ROUTES.videos,
      'GET videos': FACEBOOK_ROUTES.listVideos,
    };
    return routes[`${method} ${edge}`];
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    const params = this.params(req);
    if (req.route === FACEBOOK_ROUTES.authorize) return this.authorize(req);
    if (req.route === FACEBOOK_ROUTES.token) return this.token(params);
    const throttled = this.takeThrottle(req);
    if (throttled) return throttled;
    if (req.route === FACEBOOK_ROUTES.upload) return this.upload(req);
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
        const video = this.videos.get(first);
        if (video) {
          if (token.pageId !== video.pageId)
            return graphError(400, 10, '(#10) This endpoint requires the Page access token');
          return { status: 200, body: this.videoJson(video, params.get('fields') ?? '') };
        }
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
      case FACEBOOK_ROUTES.reels:
        return this.reels(page, params, this.graphPath(req.path)!.version);
      case FACEBOOK_ROUTES.videos:
        return this.pageVideo(page, params);
      case FACEBOOK_ROUTES.listVideos: {
        const data = this.videosOf(page.id)
          .filter((v) => v.kind === 'video')
          .reverse()
          .map((v) => ({ id: v.id, description: v.description, created_time: new Date(v.createdAt).toISOString() }));
        return { status: 200, body: { data } };
      }
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

  /** `/{page}/video_reels`: upload_phase start (a session) or finish (publish, or leave a draft). */
  private reels(page: FakeFacebookPage, params: URLSearchParams, version: string): FakeReply {
    // Page/video_reels' upload_phase is the enum START or FINISH (the description refuses other spellings).
    const phase = params.get('upload_phase')?.toLowerCase();
    if (phase === 'start') {
      this.reelStarts++;
      const video = this.newVideo(page.id, 'reel', '');
      return {
        status: 200,
        body: { video_id: video.id, upload_url: `${this.baseUrl}/video-upload/${version}/${video.id}` },
      };
    }
    if (phase !== 'finish') return graphError(400, 100, '(#100) upload_phase must be one of start, finish');
    const video = this.videos.get(params.get('video_id') ?? '');
    if (!video || video.pageId !== page.id || video.kind !== 'reel') {
      return graphError(400, 100, '(#100) Invalid video_id');
    }
    if (!video.uploaded) return graphError(400, 6000, 'There was a problem uploading your video file: upload it first');
    video.finishes++;
    video.description = params.get('description') ?? video.description;
    // Without video_state the Reel is kept as a draft, never published.
    video.videoState = params.get('video_state') ?? video.videoState;
    return { status: 200, body: { success: true } };
  }

  /** The rupload endpoint: the bytes from a `file_url` header (downloaded now) or in the body. */
  private async upload(req: FakeRequest): Promise<FakeReply> {
    const raw = /^OAuth (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    const token = this.tokens.get(raw);
    const id = req.path.split('/').pop()!;
    const video = this.videos.get(id);
    if (!token)
      return { status: 401, body: { debug_info: { type: 'OAuthException', message: 'Invalid OAuth access token' } } };
    if (!video || token.pageId !== video.pageId) {
      return { status: 400, body: { debug_info: { type: 'NotFoundError', message: 'Video not found' } } };
    }
    this.uploads++;
    const fileUrl = req.headers.file_url;
    if (typeof fileUrl === 'string' && fileUrl) {
      video.fetch = await this.downloadVideo(fileUrl);
    } else {
      video.fetch = {
        url: '',
        status: 200,
        contentType: String(req.headers['content-type'] ?? ''),
        bytes: req.body.length,
        sniffed: req.body.subarray(4, 8).toString('latin1') === 'ftyp' ? 'video/mp4' : 'unknown',
        durationSeconds: mp4DurationSeconds(req.body),
        sha256: createHash('sha256').update(req.body).digest('hex'),
      };
      this.videoFetches.push(video.fetch);
    }
    this.judge(video, { minSeconds: 3, maxSeconds: 90 });
    video.uploaded = true;
    return { status: 200, body: { success: true } };
  }

  /** `/{page}/videos` with `file_url`: downloaded now, processed over a few status reads. */
  private async pageVideo(page: FakeFacebookPage, params: URLSearchParams): Promise<FakeReply> {
    const fileUrl = params.get('file_url');
    if (!fileUrl)
      return graphError(400, 390, '(#390) There was a problem uploading your video file: file_url is required');
    this.pageVideoCreates++;
    const video = this.newVideo(page.id, 'video', params.get('description') ?? '');
    video.fetch = await this.downloadVideo(fileUrl);
    video.uploaded = true;
    video.videoState = params.get('published') === 'false' ? 'DRAFT' : 'PUBLISHED';
    this.judge(video, {});
    return this.afterPublish({ status: 200, body: { id: video.id } });
  }

  private newVideo(pageId: string, kind: 'reel' | 'video', description: string): FakeFacebookVideo {
    const video: FakeFacebookVideo = {
      id: this.newId(),
      pageId,
      kind,
      description,
      uploaded: false,
      finishes: 0,
      videoState: null,
      fetch: null,
      error: null,
      pollsLeft: this.takeSlow() ?? this.opts.videoProcessingPolls ?? 3,
      postId: null,
      createdAt: Date.now(),
    };
    this.videos.set(video.id, video);
    return video;
  }

  /** Refusals by the documented limits (Reels: 3 to 90 s), or an injected processing failure. */
  private judge(video: FakeFacebookVideo, reel: { minSeconds?: number; maxSeconds?: number }): void {
    let refusal: FakeVideoRefusal | null = this.refuseVideo(video.fetch!);
    const seconds = video.fetch!.durationSeconds;
    if (!refusal && seconds !== null && video.kind === 'reel') {
      if ((reel.minSeconds && seconds < reel.minSeconds) || (reel.maxSeconds && seconds > reel.maxSeconds)) {
        refusal = 'duration';
      }
    }
    if (!refusal && this.videoFailures > 0) {
      this.videoFailures--;
      refusal = 'processing';
    }
    const messages: Record<FakeVideoRefusal, { code: number; message: string }> = {
      download: { code: 1363041, message: 'The video file could not be downloaded from file_url' },
      format: { code: 1363019, message: 'The video file is not in a supported format' },
      size: { code: 1363022, message: 'The video file is too large' },
      duration: { code: 1363023, message: 'The video is too long or too short' },
      processing: { code: 1363040, message: 'Video processing failed' },
    };
    video.error = refusal ? messages[refusal] : null;
  }

  /** A video's fields; each read of `status` moves its processing on (and publishes it when done). */
  private videoJson(video: FakeFacebookVideo, fields: string): Record<string, unknown> {
    const body: Record<string, unknown> = { id: video.id };
    if (fields.includes('status')) body.status = this.readVideoStatus(video);
    if (fields.includes('permalink_url')) body.permalink_url = `/${video.pageId}/videos/${video.id}/`;
    if (fields.includes('description')) body.description = video.description;
    return body;
  }

  private readVideoStatus(video: FakeFacebookVideo): Record<string, unknown> {
    const phase = (status: string, extra: Record<string, unknown> = {}) => ({ status, ...extra });
    if (!video.uploaded) {
      return {
        video_status: 'upload_pending',
        uploading_phase: phase('in_progress'),
        processing_phase: phase('not_started'),
        publishing_phase: phase('not_started'),
      };
    }
    if (video.error) {
      return {
        video_status: 'error',
        uploading_phase: phase('complete'),
        processing_phase: phase('error', { errors: [video.error] }),
        publishing_phase: phase('not_started'),
      };
    }
    const publishing = video.videoState === 'PUBLISHED';
    if (video.pollsLeft > 0) {
      video.pollsLeft--;
      return {
        video_status: 'processing',
        uploading_phase: phase('complete'),
        processing_phase: phase('in_progress'),
        publishing_phase: phase('not_started'),
      };
    }
    if (publishing && !video.postId) this.publishVideo(video);
    return {
      video_status: 'ready',
      uploading_phase: phase('complete'),
      processing_phase: phase('complete'),
      publishing_phase: publishing
        ? phase('complete', { publish_status: 'published', publish_time: Math.floor(video.createdAt / 1000) })
        : phase('not_started', { publish_status: 'draft' }),
    };
  }

  private publishVideo(video: FakeFacebookVideo): void {
    const page = this.page(video.pageId)!;
    const post: FakeMetaPost = {
      id: video.id,
      ownerId: page.id,
      text: video.description,
      images: [],
      videos: video.fetch ? [video.fetch] : [],
      mediaType: video.kind === 'reel' ? 'REELS' : 'VIDEO',
      altTexts: [],
      link: null,
      replyToId: null,
      containerId: null,
      createdAt: Date.now(),
      permalink:
        video.kind === 'reel'
          ? `https://www.facebook.com/reel/${video.id}`
          : `https://www.facebook.com/${page.username}/videos/${video.id}`,
      counts: { likes: 0, reposts: 0, replies: 0, impressions: 0 },
    };
    this.posts.push(post);
    video.postId = post.id;
    this.publishLog.push({ containerId: video.id, mediaId: post.id, at: Date.now() });
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
    const page = fake.pages[0].id;
    // The Page post as the adapter sends it, `message` renamed.
    const body = new URLSearchParams({ text: 'renamed field', link: 'https://example.com/' });
    return {
      method: 'POST',
      url: `${fake.baseUrl}/v25.0/${page}/feed`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Bearer ${fake.issueToken(fake.accounts[0].id, 'page')}`,
      },
      body: body.toString(),
      renamed: { from: 'message', to: 'text' },
    };
  });
  return { ...contract, described };
}
