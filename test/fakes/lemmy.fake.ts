import { randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { parseMultipart } from './mastodon.fake';
import { lemmyDescription } from './descriptions/networks';
import { describedContract, type ProviderContractFake } from './provider-contract';

export interface LemmyFakeOptions extends FakeServerOptions {
  /** The API the instance serves: 'v3' (Lemmy 0.19, default) or 'v4' (Lemmy 1.x). */
  api?: 'v3' | 'v4';
  username?: string;
  password?: string;
  /** Communities of the instance by name. Default: `contract` (id 11) and `technology` (id 12). */
  communities?: Record<string, number>;
  /** Communities where only moderators may post. */
  restricted?: string[];
}

export interface FakeLemmyPost {
  id: number;
  communityId: number;
  creatorId: number;
  name: string;
  body: string;
  url: string | null;
  altText: string | null;
  nsfw: boolean;
  counts: FakeCounts & { downvotes?: number };
}

export interface FakeLemmyComment {
  id: number;
  postId: number;
  content: string;
}

const PERSON_ID = 42;
const fail = (status: number, error: string): FakeReply => ({ status, body: { error } });

/**
 * A local Lemmy instance speaking the API the adapter uses, on /api/v3 (0.19) or /api/v4 (1.x): site,
 * login, community, post (create, read, list), comment, and the image upload (pict-rs behind
 * /pictrs/image on 0.19, /api/v4/image on 1.x). Errors are Lemmy's `{"error": "<code>"}`.
 */
export class LemmyFake extends FakeHttpServer {
  readonly posts: FakeLemmyPost[] = [];
  readonly comments: FakeLemmyComment[] = [];
  readonly images = new Map<string, Buffer>();
  readonly sessions = new Set<string>();
  private nextId = 500;
  private revoked = false;
  private readonly opts: LemmyFakeOptions;

  constructor(options: LemmyFakeOptions = {}) {
    super(options);
    this.opts = options;
    // Lemmy reads bodies and queries with serde (actix-web's Json and Query extractors): a missing or
    // mistyped field is a 400 "Json deserialize error" / "Query deserialize error" in plain text.
    // Unknown fields are refused here too, where serde ignores them: stricter on purpose.
    this.checkAgainst(lemmyDescription(), {
      refuse: (problems, req) => ({
        status: 400,
        raw: Buffer.from(`${req.method === 'GET' ? 'Query' : 'Json'} deserialize error: ${problems.join('; ')}`),
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      }),
      // The stored images pict-rs serves back (not an API call).
      unchecked: (req) => req.route === 'GET /pictrs/image/:file',
    });
  }

  get api(): 'v3' | 'v4' {
    return this.opts.api ?? 'v3';
  }
  get username(): string {
    return this.opts.username ?? 'release_bot';
  }
  get password(): string {
    return this.opts.password ?? 'correct horse battery';
  }
  private get communities(): Record<string, number> {
    return this.opts.communities ?? { contract: 11, technology: 12 };
  }

  /** A valid session token, as a signed-in browser holds it. */
  issueJwt(): string {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: PERSON_ID, iss: 'fake', iat: Date.now() })}.${randomBytes(16).toString('base64url')}`;
    this.sessions.add(jwt);
    return jwt;
  }

  /** Sessions end and the password changes. */
  revokeAll(): void {
    this.revoked = true;
    this.sessions.clear();
  }

  setCounts(postId: string, counts: Partial<FakeCounts>): void {
    const post = this.posts.find((p) => String(p.id) === postId);
    if (!post) throw new Error(`No post ${postId}`);
    Object.assign(post.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'POST' && (path === '/pictrs/image' || path === `/api/${this.api}/image`)) return 'POST image';
    if (method === 'GET' && path.startsWith('/pictrs/image/')) return 'GET /pictrs/image/:file';
    const m = /^\/api\/(v3|v4)(\/.*)$/.exec(path);
    if (!m) return undefined;
    return `${method} ${m[2]}`;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return fail(401, 'not_logged_in');
    if (status === 429) return fail(429, 'rate_limit_error');
    if (status === 400) return fail(400, 'couldnt_create_post');
    if (status >= 500) return { status, body: { error: 'unknown', message: `HTTP ${status}` } };
    return fail(status, 'unknown');
  }

  private session(req: FakeRequest): boolean {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const cookie = /(?:^|;\s*)jwt=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1];
    const jwt = bearer ?? cookie;
    return jwt !== undefined && this.sessions.has(jwt);
  }

  private json(req: FakeRequest): Record<string, unknown> | undefined {
    try {
      const v = JSON.parse(req.body.toString('utf8')) as unknown;
      return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  protected handle(req: FakeRequest): FakeReply {
    const versioned = /^\/api\/(v3|v4)\//.exec(req.path)?.[1];
    if (versioned && versioned !== this.api) return { status: 404, body: undefined };
    if (req.route === 'GET /pictrs/image/:file') {
      const bytes = this.images.get(req.path.slice('/pictrs/image/'.length));
      return bytes ? { status: 200, raw: bytes, headers: { 'content-type': 'image/png' } } : fail(404, 'not_found');
    }
    switch (req.route) {
      case 'GET /site':
        return { status: 200, body: this.siteJson(this.session(req)) };
      case 'POST /user/login':
      case 'POST /account/auth/login': {
        if ((req.route === 'POST /user/login') !== (this.api === 'v3')) return { status: 404, body: undefined };
        const body = this.json(req);
        if (this.revoked || body?.username_or_email !== this.username || body?.password !== this.password) {
          return fail(400, 'incorrect_login');
        }
        return { status: 200, body: { jwt: this.issueJwt(), registration_created: false, verify_email_sent: false } };
      }
    }
    if (!this.session(req)) return fail(401, 'not_logged_in');
    switch (req.route) {
      case 'GET /account':
        return this.api === 'v4' ? { status: 200, body: this.myUser() } : fail(404, 'not_found');
      case 'GET /community': {
        const name = req.url.searchParams.get('name') ?? '';
        const id = this.communities[name];
        if (id === undefined) return fail(404, 'couldnt_find_community');
        return {
          status: 200,
          body: {
            community_view: {
              community: {
                id,
                name,
                title: name,
                actor_id: `${this.baseUrl}/c/${name}`,
                posting_restricted_to_mods: (this.opts.restricted ?? []).includes(name),
              },
            },
            moderators: [],
            discussion_languages: [],
          },
        };
      }
      case 'POST image':
        return this.upload(req);
      case 'POST /post':
        return this.createPost(req);
      case 'GET /post': {
        const post = this.posts.find((p) => String(p.id) === req.url.searchParams.get('id'));
        return post
          ? {
              status: 200,
              body: { post_view: this.postView(post), community_view: {}, moderators: [], cross_posts: [] },
            }
          : fail(404, 'couldnt_find_post');
      }
      case 'GET /post/list': {
        const community = Number(req.url.searchParams.get('community_id'));
        const list = this.posts
          .filter((p) => p.communityId === community)
          .reverse()
          .slice(0, Number(req.url.searchParams.get('limit') ?? 10));
        // 1.x pages lists (PagedResponse: `items`, `next_page`); 0.19 answers `posts`.
        const views = list.map((p) => this.postView(p));
        return { status: 200, body: this.api === 'v4' ? { items: views } : { posts: views } };
      }
      case 'POST /comment': {
        const body = this.json(req);
        const post = this.posts.find((p) => p.id === Number(body?.post_id));
        if (!post) return fail(404, 'couldnt_find_post');
        const content = typeof body?.content === 'string' ? body.content : '';
        if (!content.trim()) return fail(400, 'couldnt_create_comment');
        const comment = { id: this.nextId++, postId: post.id, content };
        this.comments.push(comment);
        return {
          status: 200,
          body: {
            comment_view: {
              comment: { id: comment.id, post_id: post.id, content, ap_id: `${this.baseUrl}/comment/${comment.id}` },
            },
            recipient_ids: [],
          },
        };
      }
      default:
        return fail(404, 'not_found');
    }
  }

  private person(): Record<string, unknown> {
    return {
      id: PERSON_ID,
      name: this.username,
      display_name: 'Release Bot',
      avatar: null,
      actor_id: `${this.baseUrl}/u/${this.username}`,
      local: true,
    };
  }

  private myUser(): Record<string, unknown> {
    return { local_user_view: { person: this.person(), local_user: { id: 1 } }, follows: [], moderates: [] };
  }

  private siteJson(signedIn: boolean): Record<string, unknown> {
    return {
      site_view: {
        site: { id: 1, name: 'Fake Lemmy', actor_id: `${this.baseUrl}/` },
        local_site: { id: 1 },
        local_site_rate_limit: {
          post: 6,
          post_per_second: 600,
          image: 6,
          image_per_second: 3600,
          comment: 6,
          comment_per_second: 600,
        },
      },
      admins: [],
      version: this.api === 'v3' ? '0.19.12' : '1.0.0-beta.2',
      ...(this.api === 'v3' && signedIn ? { my_user: this.myUser() } : {}),
    };
  }

  private upload(req: FakeRequest): FakeReply {
    const parts = parseMultipart(req.body, String(req.headers['content-type'] ?? ''));
    const file = parts?.find((p) => p.name === 'images[]' && p.filename !== undefined);
    if (!file) return fail(400, 'no_file_uploaded');
    if (!/^image\//.test(file.contentType ?? '')) return fail(400, 'invalid_image');
    const name = `${randomBytes(8).toString('hex')}.png`;
    this.images.set(name, file.data);
    const url = `${this.baseUrl}/pictrs/image/${name}`;
    return {
      status: 200,
      body:
        this.api === 'v3'
          ? { msg: 'ok', files: [{ file: name, delete_token: 'x' }] }
          : { image_url: url, filename: name },
    };
  }

  private createPost(req: FakeRequest): FakeReply {
    const body = this.json(req);
    if (!body) return fail(400, 'couldnt_parse_json');
    const name = typeof body.name === 'string' ? body.name : '';
    if (name.trim().length < 3 || name.length > 200) return fail(400, 'invalid_post_title');
    const community = Object.entries(this.communities).find(([, id]) => id === body.community_id);
    if (!community) return fail(404, 'couldnt_find_community');
    if ((this.opts.restricted ?? []).includes(community[0])) return fail(400, 'only_mods_can_post_in_community');
    const text = typeof body.body === 'string' ? body.body : '';
    if (text.length > 10_000) return fail(400, 'invalid_body_field');
    const post: FakeLemmyPost = {
      id: this.nextId++,
      communityId: community[1],
      creatorId: PERSON_ID,
      name,
      body: text,
      url: typeof body.url === 'string' ? body.url : null,
      altText: typeof body.alt_text === 'string' ? body.alt_text : null,
      nsfw: body.nsfw === true,
      counts: { likes: 1, reposts: 0, replies: 0 },
    };
    this.posts.push(post);
    return { status: 200, body: { post_view: this.postView(post) } };
  }

  private postView(post: FakeLemmyPost): Record<string, unknown> {
    const counts = {
      score: post.counts.likes - (post.counts.downvotes ?? 0),
      upvotes: post.counts.likes,
      downvotes: post.counts.downvotes ?? 0,
      comments: post.counts.replies + this.comments.filter((c) => c.postId === post.id).length,
    };
    const json = {
      id: post.id,
      name: post.name,
      body: post.body || undefined,
      url: post.url ?? undefined,
      alt_text: post.altText ?? undefined,
      nsfw: post.nsfw,
      creator_id: post.creatorId,
      community_id: post.communityId,
      ap_id: `${this.baseUrl}/post/${post.id}`,
      local: true,
    };
    return this.api === 'v3'
      ? { post: json, creator: this.person(), counts }
      : { post: { ...json, ...counts }, creator: this.person() };
  }

  /** Images a post shows: its url when it is an image of the instance, and those in its body. */
  imagesOf(post: FakeLemmyPost): Array<string | null> {
    const own = `${this.baseUrl}/pictrs/image/`;
    const out: Array<string | null> = [];
    if (post.url?.startsWith(own)) out.push(post.altText);
    for (const m of post.body.matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)) if (m[2].startsWith(own)) out.push(m[1] || null);
    return out;
  }
}

/** LemmyFake for the shared provider contract suite. */
export function contractFake(): ProviderContractFake {
  const fake = new LemmyFake();
  return {
    publishOptions: { community: 'contract', title: 'Contract post' },
    start: async () => {
      await fake.start();
      return { instanceUrl: fake.baseUrl, username: fake.username, password: fake.password };
    },
    stop: () => fake.stop(),
    wrongCredentials: () => ({ instanceUrl: fake.baseUrl, username: fake.username, password: 'wrong password' }),
    publishRoute: 'POST /post',
    rejectStatus: 400,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/api/${fake.api}/post`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fake.issueJwt()}` },
      body: JSON.stringify({ title: 'Contract post', community_id: 11, body: 'renamed' }),
      renamed: { from: 'name', to: 'title' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.posts.map((p) => {
        const images = fake.imagesOf(p);
        return {
          platformPostId: String(p.id),
          text: p.body,
          mediaCount: images.length,
          mediaAltTexts: images,
          inReplyTo: null,
        };
      }),
    setCounts: (id, counts) => fake.setCounts(id, counts),
  };
}
