import { randomBytes } from 'node:crypto';
import { parseMultipart } from './descriptions/description';
import { tumblrDescription } from './descriptions/networks';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';

/**
 * A local Tumblr (API v2): the OAuth 2 consent page (consents at once and redirects with `code` and
 * `state`), the token endpoint (client id and secret as form fields; refresh rotates the refresh
 * token), `/v2/user/info` with the account's blogs, NPF post creation as JSON or as multipart (the JSON
 * in the part `json`, each uploaded file in the part its media object's `identifier` names), the blog's
 * published, queued and draft posts, and a post's notes. Errors use Tumblr's `{meta, errors}` bodies.
 * Requests are checked against test/fixtures/networks/tumblr (written by hand from tumblr/docs).
 */
export const TUMBLR_ROUTES = {
  authorize: 'GET /oauth2/authorize',
  token: 'POST /v2/oauth2/token',
  userInfo: 'GET /v2/user/info',
  createPost: 'POST /v2/blog/:blog/posts',
  posts: 'GET /v2/blog/:blog/posts',
  queue: 'GET /v2/blog/:blog/posts/queue',
  drafts: 'GET /v2/blog/:blog/posts/draft',
  notes: 'GET /v2/blog/:blog/notes',
} as const;

export const TUMBLR_SCOPES = ['basic', 'write', 'offline_access'];

export interface FakeTumblrBlog {
  name: string;
  title: string;
  primary?: boolean;
}

export interface FakeTumblrPost {
  id: string;
  blog: string;
  state: string;
  paragraphs: string[];
  tags: string[];
  sourceUrl: string | null;
  /** Uploaded files, by type, and the alt text of image blocks. */
  images: Array<{ type: string; bytes: number; altText: string | null }>;
  videos: Array<{ type: string; bytes: number }>;
  timestamp: number;
  counts: FakeCounts;
}

export interface TumblrFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  blogs?: FakeTumblrBlog[];
}

const STATUS_MSG: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Limit Exceeded',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
const error = (status: number, title: string, code?: number): FakeReply => ({
  status,
  body: {
    meta: { status, msg: STATUS_MSG[status] ?? 'Error' },
    response: [],
    errors: [{ title, ...(code ? { code } : {}) }],
  },
});
const ok = (status: number, response: unknown): FakeReply => ({
  status,
  body: { meta: { status, msg: status === 201 ? 'Created' : 'OK' }, response },
});

interface Token {
  scopes: string[];
  expiresAt: number;
}

export class TumblrFake extends FakeHttpServer {
  readonly blogs: FakeTumblrBlog[];
  readonly posts: FakeTumblrPost[] = [];
  readonly authorizations: Array<Record<string, string>> = [];
  readonly clientId: string;
  readonly clientSecret: string;
  refreshCount = 0;
  private readonly accessTokens = new Map<string, Token>();
  private readonly refreshTokens = new Map<string, string[]>();
  private readonly grants = new Map<string, { redirectUri: string; scopes: string[]; used: boolean }>();
  private nextId = 765_000_000_000_000_000n;

  constructor(opts: TumblrFakeOptions = {}) {
    super(opts);
    this.clientId = opts.clientId ?? 'tumblr-consumer-key';
    this.clientSecret = opts.clientSecret ?? 'tumblr-consumer-secret';
    this.blogs = opts.blogs ?? [{ name: 'contract-blog', title: 'Contract blog', primary: true }];
    this.checkAgainst(tumblrDescription(), {
      // Tumblr's answer to a malformed NPF request: 400 with subcode 8001.
      refuse: (problems) => error(400, `Invalid NPF: ${problems.join('; ')}`, 8001),
      // The OAuth 2 endpoints are described in api.md's "OAuth2 Authorization", outside the API's methods.
      unchecked: (req) => req.route === TUMBLR_ROUTES.authorize || req.route === TUMBLR_ROUTES.token,
    });
  }

  appEnv(): Record<string, string> {
    return {
      TUMBLR_CLIENT_ID: this.clientId,
      TUMBLR_CLIENT_SECRET: this.clientSecret,
      TUMBLR_AUTH_BASE_URL: this.baseUrl,
      TUMBLR_API_BASE_URL: this.baseUrl,
    };
  }

  issueToken(scopes: string[] = TUMBLR_SCOPES): string {
    const token = `tumblr-${randomBytes(16).toString('hex')}`;
    this.accessTokens.set(token, { scopes, expiresAt: Date.now() + 2_520_000 });
    return token;
  }

  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  setCounts(id: string, counts: Partial<FakeCounts>): void {
    const post = this.posts.find((p) => p.id === id);
    if (!post) throw new Error(`No post ${id}`);
    Object.assign(post.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/oauth2/authorize') return TUMBLR_ROUTES.authorize;
    if (method === 'POST' && path === '/v2/oauth2/token') return TUMBLR_ROUTES.token;
    if (method === 'GET' && path === '/v2/user/info') return TUMBLR_ROUTES.userInfo;
    if (/^\/v2\/blog\/[^/]+\/posts$/.test(path))
      return method === 'POST' ? TUMBLR_ROUTES.createPost : TUMBLR_ROUTES.posts;
    if (method === 'GET' && /^\/v2\/blog\/[^/]+\/posts\/queue$/.test(path)) return TUMBLR_ROUTES.queue;
    if (method === 'GET' && /^\/v2\/blog\/[^/]+\/posts\/draft$/.test(path)) return TUMBLR_ROUTES.drafts;
    if (method === 'GET' && /^\/v2\/blog\/[^/]+\/notes$/.test(path)) return TUMBLR_ROUTES.notes;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return error(401, 'Unauthorized');
    if (status === 429) return error(429, 'Limit Exceeded');
    if (status === 403) return error(403, 'You have reached the daily posting limit', 8023);
    if (status === 400) return error(400, "'content' must be an array", 8001);
    return error(status, STATUS_MSG[status] ?? 'Error');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === TUMBLR_ROUTES.authorize) return this.authorize(req);
    if (req.route === TUMBLR_ROUTES.token) return this.token(req);
    if (!req.headers['user-agent']) return error(400, 'User-Agent is required');
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    if (!entry || entry.expiresAt <= Date.now()) return error(401, 'Unauthorized');
    const blogName = decodeURIComponent(req.path.split('/')[3] ?? '');
    const blog = this.blogs.find((b) => b.name === blogName);
    if (req.route === TUMBLR_ROUTES.userInfo) {
      return ok(200, {
        user: {
          name: 'contract-user',
          following: 3,
          default_post_format: 'html',
          likes: 0,
          blogs: this.blogs.map((b) => ({
            name: b.name,
            title: b.title,
            url: `https://${b.name}.tumblr.com/`,
            uuid: `t:${b.name}`,
            primary: b.primary ?? false,
            followers: 10,
            type: 'public',
          })),
        },
      });
    }
    if (!blog) return error(404, 'Not Found');
    switch (req.route) {
      case TUMBLR_ROUTES.createPost:
        if (!entry.scopes.includes('write')) return error(403, 'Forbidden');
        return this.create(req, blog);
      case TUMBLR_ROUTES.posts: {
        const npf = req.url.searchParams.get('npf') === 'true';
        const list = this.posts
          .filter((p) => p.blog === blog.name && p.state === 'published')
          .reverse()
          .slice(0, 20);
        return ok(200, {
          blog: { name: blog.name },
          posts: list.map((p) => this.postBody(p, npf)),
          total_posts: list.length,
        });
      }
      case TUMBLR_ROUTES.queue:
      case TUMBLR_ROUTES.drafts: {
        const state = req.route === TUMBLR_ROUTES.queue ? 'queue' : 'draft';
        const list = this.posts.filter((p) => p.blog === blog.name && p.state === state).reverse();
        return ok(200, { posts: list.map((p) => this.postBody(p, false)) });
      }
      case TUMBLR_ROUTES.notes: {
        const post = this.posts.find((p) => p.id === req.url.searchParams.get('id') && p.blog === blog.name);
        if (!post || post.state !== 'published') return error(404, 'Not Found');
        const replies = Array.from({ length: post.counts.replies }, (_, i) => ({
          type: 'reply',
          timestamp: post.timestamp + i,
          blog_name: `fan-${i}`,
          reply_text: 'nice',
        }));
        return ok(200, {
          notes: replies,
          rollup_notes: [],
          total_notes: post.counts.likes + post.counts.reposts + post.counts.replies,
          total_likes: post.counts.likes,
          total_reblogs: post.counts.reposts,
          _links: {},
        });
      }
      default:
        return error(404, 'Not Found');
    }
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId || q.response_type !== 'code' || !q.scope || !q.state) {
      return { status: 400, raw: Buffer.from('invalid request') };
    }
    const target = new URL(q.redirect_uri);
    target.searchParams.set('state', q.state);
    const code = randomBytes(16).toString('hex');
    this.grants.set(code, { redirectUri: q.redirect_uri, scopes: q.scope.split(' '), used: false });
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString());
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client' } };
    }
    const issue = (scopes: string[]) => {
      const body: Record<string, unknown> = {
        access_token: this.issueToken(scopes),
        expires_in: 2520,
        id_token: false,
        scope: scopes.join(' '),
        token_type: 'bearer',
      };
      if (scopes.includes('offline_access')) {
        const refresh = `tumblr-refresh-${randomBytes(12).toString('hex')}`;
        this.refreshTokens.set(refresh, scopes);
        body.refresh_token = refresh;
      }
      return { status: 200, body };
    };
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || (form.has('redirect_uri') && grant.redirectUri !== form.get('redirect_uri'))) {
        return { status: 400, body: { error: 'invalid_grant' } };
      }
      grant.used = true;
      return issue(grant.scopes);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? '';
      const scopes = this.refreshTokens.get(refresh);
      if (!scopes) return { status: 401, body: { error: 'invalid_grant' } };
      this.refreshTokens.delete(refresh);
      this.refreshCount++;
      return issue(scopes);
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  private async create(req: FakeRequest, blog: FakeTumblrBlog): Promise<FakeReply> {
    let body: Record<string, unknown>;
    const files = new Map<string, { type: string; bytes: number }>();
    if (String(req.headers['content-type']).startsWith('multipart/form-data')) {
      const header = String(req.headers['content-type']);
      const { fields } = parseMultipart(req.body, header);
      body = JSON.parse(fields.json ?? '{}') as Record<string, unknown>;
      // Each file part by name, with its size and type (parsed here: parseMultipart keeps only names).
      const boundary = /boundary="?([^";]+)"?/i.exec(header)?.[1] ?? '';
      for (const part of req.body.toString('latin1').split(`--${boundary}`).slice(1)) {
        const end = part.indexOf('\r\n\r\n');
        const head = part.slice(0, end);
        const name = /name="([^"]*)"/.exec(head)?.[1];
        if (!name || !/filename=/.test(head)) continue;
        const type = /Content-Type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '';
        files.set(name, { type, bytes: Buffer.byteLength(part.slice(end + 4).replace(/\r\n$/, ''), 'latin1') });
      }
    } else {
      body = JSON.parse(req.body.toString()) as Record<string, unknown>;
    }
    const content = (body.content as Array<Record<string, unknown>>) ?? [];
    const paragraphs: string[] = [];
    const images: FakeTumblrPost['images'] = [];
    const videos: FakeTumblrPost['videos'] = [];
    for (const block of content) {
      if (block.type === 'text') paragraphs.push(String(block.text));
      const media =
        block.type === 'image'
          ? (block.media as Array<Record<string, unknown>>)[0]
          : (block.media as Record<string, unknown>);
      if (block.type !== 'image' && block.type !== 'video') continue;
      const file = files.get(typeof media?.identifier === 'string' ? media.identifier : '');
      if (!file) return error(400, 'The uploaded media is missing its part', 8005);
      if (block.type === 'image') {
        if (!file.type.startsWith('image/')) return error(400, 'Invalid media format', 8005);
        images.push({ ...file, altText: typeof block.alt_text === 'string' ? block.alt_text : null });
      } else {
        if (file.type !== 'video/mp4') return error(400, 'Invalid media format', 8005);
        videos.push(file);
      }
    }
    if (videos.length > 1) return error(400, 'Only one native video per post', 8001);
    const post: FakeTumblrPost = {
      id: String(this.nextId++),
      blog: blog.name,
      state: typeof body.state === 'string' ? body.state : 'published',
      paragraphs,
      tags: typeof body.tags === 'string' ? body.tags.split(',').map((t) => t.trim()) : [],
      sourceUrl: typeof body.source_url === 'string' ? body.source_url : null,
      images,
      videos,
      timestamp: Math.floor(Date.now() / 1000),
      counts: { likes: 0, reposts: 0, replies: 0 },
    };
    this.posts.push(post);
    await this.waitIfHeld();
    return ok(201, { id: post.id });
  }

  private postBody(p: FakeTumblrPost, npf: boolean) {
    const common = {
      blog_name: p.blog,
      id: Number(p.id),
      id_string: p.id,
      post_url: `https://${p.blog}.tumblr.com/post/${p.id}`,
      timestamp: p.timestamp,
      state: p.state === 'queue' ? 'queued' : p.state,
      tags: p.tags,
      note_count: p.counts.likes + p.counts.reposts + p.counts.replies,
    };
    if (npf) {
      return {
        ...common,
        type: 'blocks',
        content: p.paragraphs.map((text) => ({ type: 'text', text })),
        layout: [],
        trail: [],
      };
    }
    return { ...common, type: 'text', body: p.paragraphs.join('\n') };
  }
}

/** TumblrFake for the shared provider contract suite: one blog, the account's primary. */
export function contractFake(): ProviderContractFake {
  const fake = new TumblrFake();
  return oauthContractFake(fake, {
    publishRoute: TUMBLR_ROUTES.createPost,
    rejectStatus: 403,
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.id,
        text: p.paragraphs.join('\n'),
        mediaCount: p.images.length + p.videos.length,
        mediaAltTexts: [...p.images.map((i) => i.altText), ...p.videos.map(() => null)],
        inReplyTo: null,
      })),
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/v2/blog/contract-blog/posts`,
      headers: {
        authorization: `Bearer ${fake.issueToken()}`,
        'content-type': 'application/json',
        'user-agent': 'contract',
      },
      body: JSON.stringify({ contents: [{ type: 'text', text: 'renamed' }], state: 'published' }),
      renamed: { from: 'content', to: 'contents' },
    })),
  });
}
