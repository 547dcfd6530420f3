import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { parseMultipart } from './mastodon.fake';
import { wordpressDescription } from './descriptions/networks';
import { describedContract, type ProviderContractFake } from './provider-contract';

export interface WordpressFakeOptions extends FakeServerOptions {
  username?: string;
  /** The application password, without spaces. */
  applicationPassword?: string;
  /** Capabilities of the user: `false` makes it a Contributor (no publish_posts). Default true. */
  canPublish?: boolean;
  /** Whether the user may create tags (Editor). Default true. */
  canCreateTags?: boolean;
  /** Whether the user may moderate comments (Editor; an Author may not). Default true. */
  canModerateComments?: boolean;
  /** `comment_status` of new posts. Default 'open'. */
  commentStatus?: 'open' | 'closed';
}

export interface FakeWordpressPost {
  id: number;
  title: string;
  content: string;
  excerpt: string;
  status: string;
  categories: number[];
  tags: number[];
  featuredMedia: number;
  createdAt: string;
  commentStatus: 'open' | 'closed';
  /** Figures a test sets; `replies` is added to the comments' X-WP-Total. */
  counts: FakeCounts;
}

export interface FakeWordpressMedia {
  id: number;
  mimeType: string;
  filename: string;
  bytes: Buffer;
  altText: string;
}

export interface FakeWordpressComment {
  id: number;
  post: number;
  author: number;
  content: string;
}

export const WORDPRESS_ROUTES = {
  index: 'GET /wp-json/',
  me: 'GET /wp-json/wp/v2/users/me',
  uploadMedia: 'POST /wp-json/wp/v2/media',
  createPost: 'POST /wp-json/wp/v2/posts',
  listPosts: 'GET /wp-json/wp/v2/posts',
  listTags: 'GET /wp-json/wp/v2/tags',
  createTag: 'POST /wp-json/wp/v2/tags',
  listComments: 'GET /wp-json/wp/v2/comments',
  createComment: 'POST /wp-json/wp/v2/comments',
  upload: 'GET /wp-content/uploads/:file',
} as const;

const USER_ID = 7;
const err = (status: number, code: string, message: string, extra: Record<string, unknown> = {}): FakeReply => ({
  status,
  body: { code, message, data: { status, ...extra } },
});

/**
 * A local WordPress site speaking the REST routes the adapter uses (wp/v2 users/me, media, posts,
 * tags, comments), authenticated by application passwords over HTTP Basic, with WordPress's error
 * body `{code, message, data: {status}}`.
 */
export class WordpressFake extends FakeHttpServer {
  readonly posts: FakeWordpressPost[] = [];
  readonly media: FakeWordpressMedia[] = [];
  readonly comments: FakeWordpressComment[] = [];
  readonly tags = new Map<number, string>([[3, 'News']]);
  readonly categories = new Set([1, 4]);
  private revoked = false;
  private nextId = 100;
  private readonly opts: WordpressFakeOptions;

  constructor(options: WordpressFakeOptions = {}) {
    super(options);
    this.opts = options;
    // WordPress validates each registered argument (rest_validate_request_arg: type, enum, format) and
    // answers 400 rest_invalid_param; it ignores arguments a route does not register. The fake refuses
    // those too, stricter on purpose: a misspelt field WordPress drops is a lost setting.
    this.checkAgainst(wordpressDescription(), {
      refuse: (problems) =>
        err(400, 'rest_invalid_param', `Invalid parameter(s): ${problems.join('; ')}`, {
          params: Object.fromEntries(problems.map((p, i) => [String(i), p])),
        }),
      // The uploaded files the site serves back (not the REST API).
      unchecked: (req) => req.route === WORDPRESS_ROUTES.upload,
    });
  }

  get username(): string {
    return this.opts.username ?? 'editor';
  }

  get applicationPassword(): string {
    return this.opts.applicationPassword ?? 'abcdEFGH1234ijklMNOP5678';
  }

  revokeAll(): void {
    this.revoked = true;
  }

  setCounts(postId: string, counts: Partial<FakeCounts>): void {
    const post = this.posts.find((p) => String(p.id) === postId);
    if (!post) throw new Error(`No post ${postId}`);
    Object.assign(post.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    const p = path.replace(/\/+$/, '') || '/';
    if (method === 'GET' && (p === '/wp-json' || p === '/')) return WORDPRESS_ROUTES.index;
    if (method === 'GET' && p.startsWith('/wp-content/uploads/')) return WORDPRESS_ROUTES.upload;
    const key = `${method} ${p}`;
    return Object.values(WORDPRESS_ROUTES).find((r) => r === key);
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401)
      return err(401, 'incorrect_password', 'The provided password is an invalid application password.');
    if (status === 429)
      return { ...err(429, 'too_many_requests', 'Too many requests'), headers: { 'retry-after': '1' } };
    if (status === 400)
      return err(400, 'rest_invalid_param', 'Invalid parameter(s): status', {
        params: { status: 'status is not one of publish, future, draft, pending, private.' },
      });
    if (status === 403)
      return err(403, 'rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
    if (status >= 500) return err(status, 'internal_server_error', 'There has been a critical error on this website.');
    return err(status, 'rest_error', `HTTP ${status}`);
  }

  private authenticated(req: FakeRequest): boolean | 'wrong' {
    const header = req.headers.authorization ?? '';
    const m = /^Basic\s+(.+)$/i.exec(header);
    if (!m) return false;
    const [user, ...rest] = Buffer.from(m[1], 'base64').toString('utf8').split(':');
    const password = rest.join(':').replace(/\s+/g, '');
    return user === this.username && password === this.applicationPassword && !this.revoked ? true : 'wrong';
  }

  protected handle(req: FakeRequest): FakeReply {
    if (req.route === WORDPRESS_ROUTES.index) {
      return {
        status: 200,
        body: {
          name: 'Fake Blog',
          description: 'Just another WordPress site',
          url: this.baseUrl,
          home: this.baseUrl,
          namespaces: ['oembed/1.0', 'wp/v2'],
          authentication: {
            'application-passwords': {
              endpoints: { authorization: `${this.baseUrl}/wp-admin/authorize-application.php` },
            },
          },
          routes: {},
        },
      };
    }
    if (req.route === WORDPRESS_ROUTES.upload) {
      const media = this.media.find((m) => req.path.endsWith(`/${m.id}-${m.filename}`));
      return media
        ? { status: 200, raw: media.bytes, headers: { 'content-type': media.mimeType } }
        : err(404, 'not_found', 'Not found');
    }
    const auth = this.authenticated(req);
    if (auth === 'wrong')
      return err(401, 'incorrect_password', 'The provided password is an invalid application password.');
    if (req.route === WORDPRESS_ROUTES.listComments && req.method === 'GET' && !req.url.searchParams.has('author')) {
      return this.listComments(req); // public
    }
    if (!auth) return err(401, 'rest_not_logged_in', 'You are not currently logged in.');
    switch (req.route) {
      case WORDPRESS_ROUTES.me:
        return { status: 200, body: this.userJson() };
      case WORDPRESS_ROUTES.uploadMedia:
        return this.uploadMedia(req);
      case WORDPRESS_ROUTES.createPost:
        return this.createPost(req);
      case WORDPRESS_ROUTES.listPosts:
        return this.listPosts(req);
      case WORDPRESS_ROUTES.listTags: {
        const search = (req.url.searchParams.get('search') ?? '').toLowerCase();
        const found = [...this.tags].filter(([, name]) => name.toLowerCase().includes(search));
        return {
          status: 200,
          body: found.map(([id, name]) => ({ id, name, slug: name.toLowerCase(), taxonomy: 'post_tag', count: 0 })),
        };
      }
      case WORDPRESS_ROUTES.createTag: {
        if (this.opts.canCreateTags === false)
          return err(403, 'rest_cannot_create', 'Sorry, you are not allowed to create terms in this taxonomy.');
        const name = this.text((this.json(req) as { name?: unknown } | undefined)?.name).trim();
        if (!name) return err(400, 'rest_missing_callback_param', 'Missing parameter(s): name', { params: ['name'] });
        const existing = [...this.tags].find(([, n]) => n.toLowerCase() === name.toLowerCase());
        if (existing)
          return err(400, 'term_exists', 'A term with the name provided already exists in this taxonomy.', {
            term_id: existing[0],
          });
        const id = this.nextId++;
        this.tags.set(id, name);
        return { status: 201, body: { id, name, slug: name.toLowerCase(), taxonomy: 'post_tag', count: 0 } };
      }
      case WORDPRESS_ROUTES.listComments:
        return this.listComments(req);
      case WORDPRESS_ROUTES.createComment:
        return this.createComment(req);
      default:
        return err(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
  }

  private text(value: unknown): string {
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  }

  private json(req: FakeRequest): unknown {
    try {
      return JSON.parse(req.body.toString('utf8'));
    } catch {
      return undefined;
    }
  }

  private userJson(): Record<string, unknown> {
    return {
      id: USER_ID,
      username: this.username,
      name: 'Ed Itor',
      slug: this.username,
      link: `${this.baseUrl}/author/${this.username}/`,
      avatar_urls: {
        '24': `${this.baseUrl}/avatar-24.png`,
        '48': `${this.baseUrl}/avatar-48.png`,
        '96': `${this.baseUrl}/avatar-96.png`,
      },
      roles: [this.opts.canPublish === false ? 'contributor' : 'editor'],
      capabilities: {
        edit_posts: true,
        publish_posts: this.opts.canPublish !== false,
        upload_files: this.opts.canPublish !== false,
      },
    };
  }

  private uploadMedia(req: FakeRequest): FakeReply {
    const parts = parseMultipart(req.body, String(req.headers['content-type'] ?? ''));
    const file = parts?.find((p) => p.name === 'file' && p.filename !== undefined);
    if (!file) return err(400, 'rest_upload_no_data', 'No data supplied.');
    const mimeType = (file.contentType ?? '').toLowerCase();
    if (!/^(image\/(jpeg|png|gif|webp)|video\/(mp4|quicktime|webm))$/.test(mimeType)) {
      return err(500, 'rest_upload_sideload_error', 'Sorry, you are not allowed to upload this file type.');
    }
    const alt = parts?.find((p) => p.name === 'alt_text')?.data.toString('utf8') ?? '';
    const media: FakeWordpressMedia = {
      id: this.nextId++,
      mimeType,
      filename: file.filename || 'upload',
      bytes: file.data,
      altText: alt,
    };
    this.media.push(media);
    const url = `${this.baseUrl}/wp-content/uploads/${media.id}-${media.filename}`;
    return {
      status: 201,
      body: { id: media.id, type: 'attachment', mime_type: mimeType, alt_text: alt, source_url: url, link: url },
    };
  }

  private createPost(req: FakeRequest): FakeReply {
    const body = this.json(req) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return err(400, 'rest_invalid_json', 'Invalid JSON body passed.');
    const status = body.status === undefined ? 'draft' : this.text(body.status);
    if (!['publish', 'future', 'draft', 'pending', 'private'].includes(status)) {
      return err(400, 'rest_invalid_param', 'Invalid parameter(s): status', {
        params: { status: 'status is not one of publish, future, draft, pending, private.' },
      });
    }
    if (this.opts.canPublish === false && status === 'publish') {
      return err(403, 'rest_cannot_publish', 'Sorry, you are not allowed to publish posts as this user.');
    }
    const ids = (v: unknown) => (Array.isArray(v) ? v.map(Number) : []);
    const categories = ids(body.categories);
    const badCategory = categories.find((c) => !this.categories.has(c));
    if (badCategory !== undefined)
      return err(400, 'rest_invalid_param', 'Invalid parameter(s): categories', {
        params: { categories: `Invalid term ID ${badCategory}.` },
      });
    const tags = ids(body.tags);
    const badTag = tags.find((t) => !this.tags.has(t));
    if (badTag !== undefined)
      return err(400, 'rest_invalid_param', 'Invalid parameter(s): tags', {
        params: { tags: `Invalid term ID ${badTag}.` },
      });
    const featured = Number(body.featured_media ?? 0);
    if (featured && !this.media.some((m) => m.id === featured && m.mimeType.startsWith('image/'))) {
      return err(400, 'rest_invalid_featured_media', 'Invalid featured media ID.');
    }
    const post: FakeWordpressPost = {
      id: this.nextId++,
      title: this.text(body.title),
      content: this.text(body.content),
      excerpt: this.text(body.excerpt),
      status,
      categories: categories.length ? categories : [1],
      tags,
      featuredMedia: featured,
      createdAt: new Date().toISOString(),
      commentStatus: this.opts.commentStatus ?? 'open',
      counts: { likes: 0, reposts: 0, replies: 0 },
    };
    if (!post.title && !post.content && !post.excerpt)
      return err(400, 'empty_content', 'Content, title, and excerpt are empty.');
    this.posts.push(post);
    return { status: 201, body: this.postJson(post) };
  }

  /** Media ids a post carries: its featured image and the blocks of its content. */
  mediaOf(post: FakeWordpressPost): FakeWordpressMedia[] {
    const ids = [...post.content.matchAll(/<!-- wp:(?:image|video) \{"id":(\d+)\}/g)].map((m) => Number(m[1]));
    if (post.featuredMedia) ids.unshift(post.featuredMedia);
    return ids.flatMap((id) => this.media.filter((m) => m.id === id));
  }

  private postJson(post: FakeWordpressPost): Record<string, unknown> {
    return {
      id: post.id,
      date: post.createdAt,
      status: post.status,
      type: 'post',
      link: `${this.baseUrl}/?p=${post.id}`,
      title: { raw: post.title, rendered: post.title },
      content: { raw: post.content, rendered: `<p>${post.content}</p>`, protected: false },
      excerpt: { raw: post.excerpt, rendered: post.excerpt },
      author: USER_ID,
      featured_media: post.featuredMedia,
      comment_status: post.commentStatus,
      categories: post.categories,
      tags: post.tags,
    };
  }

  private listPosts(req: FakeRequest): FakeReply {
    const statuses = (req.url.searchParams.get('status') ?? 'publish').split(',');
    const list = this.posts
      .filter((p) => statuses.includes(p.status))
      .reverse()
      .slice(0, Number(req.url.searchParams.get('per_page') ?? 10));
    return { status: 200, body: list.map((p) => this.postJson(p)) };
  }

  private listComments(req: FakeRequest): FakeReply {
    const edit = req.url.searchParams.get('context') === 'edit';
    if (edit && this.opts.canModerateComments === false) {
      return err(403, 'rest_forbidden_context', 'Sorry, you are not allowed to edit comments.');
    }
    const postId = Number(req.url.searchParams.get('post'));
    const author = req.url.searchParams.get('author');
    const all = this.comments.filter((c) => c.post === postId && (author === null || String(c.author) === author));
    const extra = this.posts.find((p) => p.id === postId)?.counts.replies ?? 0;
    const page = all.slice(0, Number(req.url.searchParams.get('per_page') ?? 10));
    return {
      status: 200,
      headers: { 'x-wp-total': String(all.length + extra), 'x-wp-totalpages': '1' },
      body: page.map((c) => ({
        id: c.id,
        post: c.post,
        author: c.author,
        // `raw` is of the edit context; the rendered text has WordPress's curly quotes and paragraphs.
        content: {
          ...(edit ? { raw: c.content } : {}),
          rendered: `<p>${c.content.replace(/'/g, '&#8217;')}</p>\n`,
        },
        link: `${this.baseUrl}/?p=${c.post}#comment-${c.id}`,
        status: 'approved',
      })),
    };
  }

  private createComment(req: FakeRequest): FakeReply {
    const body = this.json(req) as { post?: unknown; content?: unknown } | undefined;
    const post = this.posts.find((p) => p.id === Number(body?.post));
    if (!post)
      return err(
        403,
        'rest_comment_invalid_post_id',
        'Sorry, you are not allowed to create this comment without a post.',
      );
    if (post.commentStatus === 'closed')
      return err(403, 'rest_comment_closed', 'Sorry, comments are closed for this item.');
    const content = this.text(body?.content);
    if (!content) return err(400, 'rest_comment_content_invalid', 'Invalid comment content.');
    const comment = { id: this.nextId++, post: post.id, author: USER_ID, content };
    this.comments.push(comment);
    return {
      status: 201,
      body: {
        id: comment.id,
        post: post.id,
        author: USER_ID,
        content: { raw: content, rendered: `<p>${content}</p>` },
        link: `${this.baseUrl}/?p=${post.id}#comment-${comment.id}`,
        status: 'approved',
      },
    };
  }
}

/** WordpressFake for the shared provider contract suite. */
export function contractFake(): ProviderContractFake {
  const fake = new WordpressFake();
  const credentials = () => ({
    siteUrl: fake.baseUrl,
    username: fake.username,
    applicationPassword: 'abcd EFGH 1234 ijkl MNOP 5678',
  });
  return {
    start: async () => {
      await fake.start();
      return credentials();
    },
    stop: () => fake.stop(),
    wrongCredentials: () => ({ ...credentials(), applicationPassword: 'wxyz WXYZ 0000 wxyz WXYZ 0000' }),
    publishRoute: WORDPRESS_ROUTES.createPost,
    rejectStatus: 400,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/wp-json/wp/v2/posts`,
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${fake.username}:${fake.applicationPassword}`).toString('base64')}`,
      },
      body: JSON.stringify({ content: 'renamed', state: 'publish' }),
      renamed: { from: 'status', to: 'state' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.posts.map((p) => {
        const media = fake.mediaOf(p);
        return {
          platformPostId: String(p.id),
          text: p.content,
          mediaCount: media.length,
          mediaAltTexts: media.map((m) => m.altText || null),
          inReplyTo: null,
        };
      }),
    setCounts: (id, counts) => fake.setCounts(id, counts),
  };
}
