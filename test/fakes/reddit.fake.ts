import { createHash, randomBytes } from 'node:crypto';
import { parseMultipart } from './descriptions/description';
import { redditDescription } from './descriptions/networks';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { basicOf, basicPair, recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local Reddit: the OAuth consent page (consents at once and redirects with `code` and `state`), the
 * token endpoint (HTTP Basic client authentication; a refresh token only for `duration=permanent`, kept
 * on refresh), `/api/v1/me`, a subreddit's `about` and `post_requirements`, the media asset lease and
 * the storage upload it points to, `/api/submit` (self, link, image, video), the gallery endpoint,
 * `/api/comment`, `/api/info` and the account's submitted and comments listings. Every answer carries
 * Reddit's rate-limit headers; refusals of a submission come as `json.errors` in a 200, as Reddit's do.
 * Requests are checked against test/fixtures/networks/reddit (written by hand: Reddit publishes no
 * machine-readable description).
 */
export const REDDIT_ROUTES = {
  authorize: 'GET /api/v1/authorize',
  token: 'POST /api/v1/access_token',
  revoke: 'POST /api/v1/revoke_token',
  me: 'GET /api/v1/me',
  about: 'GET /r/:sr/about',
  requirements: 'GET /api/v1/:sr/post_requirements',
  lease: 'POST /api/media/asset.json',
  upload: 'POST /media-upload',
  submit: 'POST /api/submit',
  gallery: 'POST /api/submit_gallery_post.json',
  comment: 'POST /api/comment',
  info: 'GET /api/info',
  submitted: 'GET /user/:name/submitted',
  comments: 'GET /user/:name/comments',
} as const;

export const REDDIT_SCOPES = ['identity', 'submit', 'read', 'history'];

/** A subreddit and the rules its `about` and `post_requirements` expose. */
export interface FakeSubreddit {
  name: string;
  submissionType?: 'any' | 'link' | 'self';
  allowImages?: boolean;
  allowVideos?: boolean;
  allowGalleries?: boolean;
  flairRequired?: boolean;
  /** Flair template ids of the subreddit. */
  flairs?: string[];
  titleMax?: number;
  /** The account may not post there: Reddit answers SUBREDDIT_NOTALLOWED. */
  notAllowed?: boolean;
}

export interface FakeRedditThing {
  /** Fullname: `t3_...` (submission) or `t1_...` (comment). */
  name: string;
  kind: 'self' | 'link' | 'image' | 'video' | 'gallery' | 'comment';
  subreddit: string;
  title: string | null;
  text: string;
  url: string | null;
  /** Uploaded media the thing shows (keys or asset ids). */
  media: string[];
  posterUrl: string | null;
  flairId: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
  parentId: string | null;
  createdUtc: number;
  counts: FakeCounts & { upvoteRatio: number };
  /** Reads of the submitted listing before a media post shows there (Reddit processing it). */
  hiddenFor: number;
}

export interface RedditFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  subreddits?: FakeSubreddit[];
  /** Reads of the submitted listing an image or video post stays hidden for. Default 0. */
  mediaProcessingReads?: number;
}

const httpError = (status: number, message: string): FakeReply => ({ status, body: { message, error: status } });
const UNAUTHORIZED = httpError(401, 'Unauthorized');
const apiErrors = (...errors: Array<[string, string, string | null]>): FakeReply => ({
  status: 200,
  body: { json: { errors } },
});
const base36 = (n: number) => n.toString(36);

interface Token {
  scopes: string[];
  expiresAt: number;
}

export class RedditFake extends FakeHttpServer {
  readonly username = 'contract_redditor';
  readonly subreddits: FakeSubreddit[];
  readonly things: FakeRedditThing[] = [];
  readonly authorizations: Array<Record<string, string>> = [];
  readonly clientId: string;
  readonly clientSecret: string;
  refreshCount = 0;
  /** Requests left in the window, sent as X-Ratelimit-Remaining (Reddit: 100 per minute per client). */
  rateRemaining = 99;
  rateResetSeconds = 42;
  private readonly accessTokens = new Map<string, Token>();
  private readonly refreshTokens = new Map<string, string[]>();
  private readonly grants = new Map<
    string,
    { redirectUri: string; scopes: string[]; permanent: boolean; used: boolean }
  >();
  /** Leases given: key -> asset, and the uploads received. */
  private readonly leases = new Map<string, { assetId: string; mimetype: string; uploaded: boolean }>();
  private nextId = 1_000_000;
  private refusals: Array<[string, string, string | null]> = [];
  /** Reads of the submitted listing an image or video post stays hidden for (Reddit processing it). */
  mediaProcessingReads: number;

  constructor(opts: RedditFakeOptions = {}) {
    super(opts);
    this.clientId = opts.clientId ?? 'reddit-client-id';
    this.clientSecret = opts.clientSecret ?? 'reddit-client-secret';
    this.subreddits = opts.subreddits ?? [{ name: 'test' }];
    this.mediaProcessingReads = opts.mediaProcessingReads ?? 0;
    this.checkAgainst(redditDescription(), {
      // Reddit answers a malformed request with a 400 and its reason.
      refuse: (problems) => ({
        status: 400,
        body: { message: 'Bad Request', error: 400, explanation: problems.join('; ') },
      }),
      // The OAuth endpoints are described in Reddit's OAuth2 wiki, the upload goes to the storage.
      unchecked: (req) =>
        req.route === REDDIT_ROUTES.authorize ||
        req.route === REDDIT_ROUTES.token ||
        req.route === REDDIT_ROUTES.revoke ||
        req.route === REDDIT_ROUTES.upload,
    });
  }

  appEnv(): Record<string, string> {
    return {
      REDDIT_CLIENT_ID: this.clientId,
      REDDIT_CLIENT_SECRET: this.clientSecret,
      REDDIT_AUTH_BASE_URL: this.baseUrl,
      REDDIT_API_BASE_URL: this.baseUrl,
      REDDIT_TOKEN_BASE_URL: this.baseUrl,
    };
  }

  issueToken(scopes: string[] = REDDIT_SCOPES): string {
    const token = `reddit-${randomBytes(16).toString('hex')}`;
    this.accessTokens.set(token, { scopes, expiresAt: Date.now() + 86_400_000 });
    this.lastAccessToken = token;
    return token;
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The access token issued last, and the refresh token of the last code exchange (null: a temporary grant). */
  lastAccessToken = '';
  lastRefreshToken: string | null = null;
  /** The access tokens issued from each refresh token (at the code exchange and by refreshes). */
  private readonly issuedFrom = new Map<string, string[]>();

  /**
   * POST /api/v1/revoke_token (Reddit's OAuth2 wiki, "Manually revoking a token"): the app authenticated
   * with Basic, `token` and `token_type_hint` as a form. A revoked refresh token takes the access tokens
   * issued from it along. Reddit answers 204, also for a token it does not know.
   */
  private revoke(req: FakeRequest): FakeReply {
    const sent = recordRevocation(req, this.revocations);
    const pair = basicPair(sent.authorization);
    if (!pair || pair[0] !== this.clientId || pair[1] !== this.clientSecret) return httpError(401, 'Unauthorized');
    const token = sent.form.token ?? '';
    this.accessTokens.delete(token);
    if (this.refreshTokens.delete(token)) {
      for (const access of this.issuedFrom.get(token) ?? []) this.accessTokens.delete(access);
      this.issuedFrom.delete(token);
    }
    return { status: 204 };
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

  /** The next submission (or comment) is refused with these `json.errors`, in a 200 as Reddit does. */
  refuseNext(code: string, message: string, field: string | null = null): void {
    this.refusals.push([code, message, field]);
  }

  setCounts(name: string, counts: Partial<FakeCounts & { upvoteRatio: number }>): void {
    const thing = this.things.find((t) => t.name === name);
    if (!thing) throw new Error(`No thing ${name}`);
    Object.assign(thing.counts, counts);
  }

  /** Submissions (not comments) with this text. */
  posts(): FakeRedditThing[] {
    return this.things.filter((t) => t.kind !== 'comment');
  }

  protected routeOf(method: string, path: string): string | undefined {
    const p = path.replace(/\/$/, '');
    if (method === 'GET' && p === '/api/v1/authorize') return REDDIT_ROUTES.authorize;
    if (method === 'POST' && p === '/api/v1/access_token') return REDDIT_ROUTES.token;
    if (method === 'POST' && p === '/api/v1/revoke_token') return REDDIT_ROUTES.revoke;
    if (method === 'GET' && p === '/api/v1/me') return REDDIT_ROUTES.me;
    if (method === 'GET' && /^\/r\/[^/]+\/about$/.test(p)) return REDDIT_ROUTES.about;
    if (method === 'GET' && /^\/api\/v1\/[^/]+\/post_requirements$/.test(p)) return REDDIT_ROUTES.requirements;
    if (method === 'POST' && p === '/api/media/asset.json') return REDDIT_ROUTES.lease;
    if (method === 'POST' && p === '/media-upload') return REDDIT_ROUTES.upload;
    if (method === 'POST' && p === '/api/submit') return REDDIT_ROUTES.submit;
    if (method === 'POST' && p === '/api/submit_gallery_post.json') return REDDIT_ROUTES.gallery;
    if (method === 'POST' && p === '/api/comment') return REDDIT_ROUTES.comment;
    if (method === 'GET' && p === '/api/info') return REDDIT_ROUTES.info;
    if (method === 'GET' && /^\/user\/[^/]+\/submitted$/.test(p)) return REDDIT_ROUTES.submitted;
    if (method === 'GET' && /^\/user\/[^/]+\/comments$/.test(p)) return REDDIT_ROUTES.comments;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401) return UNAUTHORIZED;
    if (status === 429) {
      return {
        ...httpError(429, 'Too Many Requests'),
        headers: { 'x-ratelimit-used': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' },
      };
    }
    if (status === 403) return httpError(403, 'Forbidden');
    if (status === 400) return httpError(400, 'Bad Request');
    return httpError(status, 'Internal Server Error');
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    const reply = await this.answer(req);
    // Reddit's rate-limit headers on every API answer.
    if (req.route !== REDDIT_ROUTES.upload && req.route !== REDDIT_ROUTES.authorize) {
      reply.headers = {
        'x-ratelimit-used': String(100 - this.rateRemaining),
        'x-ratelimit-remaining': String(this.rateRemaining),
        'x-ratelimit-reset': String(this.rateResetSeconds),
        ...reply.headers,
      };
    }
    return reply;
  }

  private async answer(req: FakeRequest): Promise<FakeReply> {
    if (req.route === REDDIT_ROUTES.authorize) return this.authorize(req);
    if (req.route === REDDIT_ROUTES.token) return this.token(req);
    if (req.route === REDDIT_ROUTES.revoke) return this.revoke(req);
    if (req.route === REDDIT_ROUTES.upload) return this.upload(req);
    const ua = String(req.headers['user-agent'] ?? '');
    // Reddit blocks generic User-Agents: it asks for <platform>:<app id>:<version> (by /u/<username>).
    if (!/^\S+:\S+:\S+ \(.+\)$/.test(ua)) return httpError(429, 'Too Many Requests');
    const token = this.authenticate(req);
    if (!token) return UNAUTHORIZED;
    const scope = (s: string) => (token.scopes.includes(s) ? null : httpError(403, `insufficient_scope: ${s}`));
    const form = () => Object.fromEntries(new URLSearchParams(req.body.toString()));
    const segment = (i: number) => decodeURIComponent(req.path.split('/')[i]);
    switch (req.route) {
      case REDDIT_ROUTES.me:
        return (
          scope('identity') ?? {
            status: 200,
            body: { name: this.username, id: 'k8sx3', icon_img: `${this.baseUrl}/avatars/${this.username}.png?s=1` },
          }
        );
      case REDDIT_ROUTES.about: {
        const sr = this.subreddit(segment(2));
        if (!sr) return httpError(404, 'Not Found');
        return (
          scope('read') ?? {
            status: 200,
            body: {
              kind: 't5',
              data: {
                display_name: sr.name,
                submission_type: sr.submissionType ?? 'any',
                allow_images: sr.allowImages ?? true,
                allow_videos: sr.allowVideos ?? true,
                allow_galleries: sr.allowGalleries ?? true,
              },
            },
          }
        );
      }
      case REDDIT_ROUTES.requirements: {
        const sr = this.subreddit(segment(3));
        if (!sr) return httpError(404, 'Not Found');
        return (
          scope('submit') ?? {
            status: 200,
            body: {
              is_flair_required: sr.flairRequired ?? false,
              title_text_min_length: null,
              title_text_max_length: sr.titleMax ?? null,
              body_restriction_policy: 'none',
              body_text_max_length: null,
              title_regexes: [],
              body_regexes: [],
              domain_blacklist: [],
              domain_whitelist: [],
            },
          }
        );
      }
      case REDDIT_ROUTES.lease: {
        const denied = scope('submit');
        if (denied) return denied;
        const f = form();
        const key = `rte_images/${randomBytes(6).toString('hex')}/${f.filepath}`;
        const assetId = randomBytes(6).toString('hex');
        this.leases.set(key, { assetId, mimetype: f.mimetype, uploaded: false });
        const port = new URL(this.baseUrl).host;
        return {
          status: 200,
          body: {
            args: {
              action: `//${port}/media-upload`,
              fields: [
                { name: 'acl', value: 'private' },
                { name: 'key', value: key },
                { name: 'Content-Type', value: f.mimetype },
                { name: 'x-amz-signature', value: this.sign(key) },
                { name: 'policy', value: Buffer.from('{}').toString('base64') },
              ],
            },
            asset: {
              asset_id: assetId,
              processing_state: 'incomplete',
              payload: { filepath: f.filepath },
              websocket_url: `wss://ws.fake.invalid/${assetId}`,
            },
          },
        };
      }
      case REDDIT_ROUTES.submit:
        return scope('submit') ?? (await this.submit(form()));
      case REDDIT_ROUTES.gallery:
        return scope('submit') ?? (await this.gallery(JSON.parse(req.body.toString()) as Record<string, unknown>));
      case REDDIT_ROUTES.comment:
        return scope('submit') ?? this.comment(form());
      case REDDIT_ROUTES.info: {
        const ids = (req.url.searchParams.get('id') ?? '').split(',');
        const found = this.things.filter((t) => ids.includes(t.name));
        return scope('read') ?? { status: 200, body: this.listing(found) };
      }
      case REDDIT_ROUTES.submitted:
      case REDDIT_ROUTES.comments: {
        const denied = scope('history');
        if (denied) return denied;
        if (segment(2) !== this.username) return httpError(404, 'Not Found');
        const comments = req.route === REDDIT_ROUTES.comments;
        const limit = Number(req.url.searchParams.get('limit') ?? 25);
        const visible = this.things.filter((t) => {
          if ((t.kind === 'comment') !== comments) return false;
          if (t.hiddenFor > 0) {
            t.hiddenFor -= 1;
            return false;
          }
          return true;
        });
        return { status: 200, body: this.listing(visible.reverse().slice(0, limit)) };
      }
      default:
        return httpError(404, 'Not Found');
    }
  }

  private subreddit(name: string): FakeSubreddit | undefined {
    return this.subreddits.find((s) => s.name.toLowerCase() === name.toLowerCase());
  }

  private sign(key: string): string {
    return createHash('sha256').update(key).digest('hex');
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(q);
    if (q.client_id !== this.clientId || q.response_type !== 'code' || !q.redirect_uri || !q.scope || !q.state) {
      return { status: 400, raw: Buffer.from('invalid request') };
    }
    if (q.duration !== undefined && q.duration !== 'permanent' && q.duration !== 'temporary') {
      return { status: 400, raw: Buffer.from('invalid duration') };
    }
    const target = new URL(q.redirect_uri);
    target.searchParams.set('state', q.state);
    const code = randomBytes(16).toString('hex');
    this.grants.set(code, {
      redirectUri: q.redirect_uri,
      scopes: q.scope.split(/[ ,]+/),
      permanent: q.duration === 'permanent',
      used: false,
    });
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(req: FakeRequest): FakeReply {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [];
    if (id !== this.clientId || secret !== this.clientSecret) return httpError(401, 'Unauthorized');
    const form = new URLSearchParams(req.body.toString());
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) {
        return { status: 200, body: { error: 'invalid_grant' } };
      }
      grant.used = true;
      const body: Record<string, unknown> = this.accessBody(grant.scopes);
      this.lastRefreshToken = null;
      // Only a permanent grant gets a refresh token.
      if (grant.permanent) {
        const refreshToken = `reddit-refresh-${randomBytes(12).toString('hex')}`;
        this.refreshTokens.set(refreshToken, grant.scopes);
        this.issuedFrom.set(refreshToken, [body.access_token as string]);
        body.refresh_token = refreshToken;
        this.lastRefreshToken = refreshToken;
      }
      return { status: 200, body };
    }
    if (form.get('grant_type') === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? '';
      const scopes = this.refreshTokens.get(refreshToken);
      if (!scopes) return { status: 400, body: { error: 'invalid_grant' } };
      this.refreshCount++;
      const body = this.accessBody(scopes);
      this.issuedFrom.get(refreshToken)?.push(body.access_token);
      return { status: 200, body };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  private accessBody(scopes: string[]) {
    return { access_token: this.issueToken(scopes), token_type: 'bearer', expires_in: 86_400, scope: scopes.join(' ') };
  }

  private authenticate(req: FakeRequest): Token | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry : null;
  }

  /** The storage upload: the signed fields, then `file`. */
  private upload(req: FakeRequest): FakeReply {
    const { fields, files } = parseMultipart(req.body, String(req.headers['content-type'] ?? ''));
    const lease = this.leases.get(fields.key ?? '');
    if (!lease || fields['x-amz-signature'] !== this.sign(fields.key)) {
      return { status: 403, raw: Buffer.from('<Error><Code>AccessDenied</Code></Error>') };
    }
    if (!files.includes('file')) {
      return { status: 400, raw: Buffer.from('<Error><Code>IncorrectNumberOfFilesInPostRequest</Code></Error>') };
    }
    lease.uploaded = true;
    return {
      status: 201,
      raw: Buffer.from(`<PostResponse><Location>${this.baseUrl}/media-upload/${fields.key}</Location></PostResponse>`),
    };
  }

  /** The uploaded lease a media URL names (`{action}/{key}`), with the type it was leased for. */
  private uploaded(url: string | undefined, prefix: string) {
    const key = url?.startsWith(`${this.baseUrl}/media-upload/`)
      ? url.slice(`${this.baseUrl}/media-upload/`.length)
      : '';
    const lease = this.leases.get(key);
    return lease?.uploaded && lease.mimetype.startsWith(prefix) ? key : null;
  }

  private refusal(sr: FakeSubreddit | undefined, f: Record<string, unknown>): FakeReply | null {
    const refused = this.refusals.shift();
    if (refused) return apiErrors(refused);
    if (!sr) return apiErrors(['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']);
    if (sr.notAllowed) return apiErrors(['SUBREDDIT_NOTALLOWED', "you aren't allowed to post there.", 'sr']);
    if (sr.flairRequired && !f.flair_id) {
      return apiErrors(['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']);
    }
    if (f.flair_id && !(sr.flairs ?? []).includes(typeof f.flair_id === 'string' ? f.flair_id : '')) {
      return apiErrors(['INVALID_FLAIR_TEMPLATE_ID', 'flair template not found', 'flair_template_id']);
    }
    return null;
  }

  private thing(
    partial: Partial<FakeRedditThing> & Pick<FakeRedditThing, 'kind' | 'subreddit' | 'text'>,
  ): FakeRedditThing {
    const thing: FakeRedditThing = {
      name: `${partial.kind === 'comment' ? 't1' : 't3'}_${base36(this.nextId++)}`,
      title: null,
      url: null,
      media: [],
      posterUrl: null,
      flairId: null,
      nsfw: false,
      spoiler: false,
      sendReplies: true,
      parentId: null,
      createdUtc: Date.now() / 1000,
      counts: { likes: 1, reposts: 0, replies: 0, upvoteRatio: 1 },
      hiddenFor: 0,
      ...partial,
    };
    this.things.push(thing);
    return thing;
  }

  private async submit(f: Record<string, string>): Promise<FakeReply> {
    const sr = this.subreddit(f.sr ?? '');
    const refused = this.refusal(sr, f);
    if (refused) return refused;
    const kind = f.kind as FakeRedditThing['kind'];
    if (kind === 'self' && sr!.submissionType === 'link')
      return apiErrors(['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']);
    if (kind !== 'self' && sr!.submissionType === 'self')
      return apiErrors(['NO_LINKS', 'that subreddit only allows text posts', 'sr']);
    const media: string[] = [];
    let posterUrl: string | null = null;
    if (kind === 'image' || kind === 'video') {
      const key = this.uploaded(f.url, kind === 'image' ? 'image/' : 'video/');
      if (!key) return apiErrors(['BAD_URL', 'the media was not uploaded', 'url']);
      media.push(key);
      if (kind === 'video') {
        if (!this.uploaded(f.video_poster_url, 'image/'))
          return apiErrors(['BAD_URL', 'a video needs a poster', 'video_poster_url']);
        posterUrl = f.video_poster_url;
      }
    }
    if (kind === 'link' && !/^https?:\/\//.test(f.url ?? ''))
      return apiErrors(['BAD_URL', 'you should check that url', 'url']);
    const thing = this.thing({
      kind,
      subreddit: sr!.name,
      title: f.title,
      text: f.text ?? '',
      url: f.url ?? null,
      media,
      posterUrl,
      flairId: f.flair_id ?? null,
      nsfw: f.nsfw === 'true',
      spoiler: f.spoiler === 'true',
      sendReplies: f.sendreplies !== 'false',
      hiddenFor: kind === 'image' || kind === 'video' ? this.mediaProcessingReads : 0,
    });
    await this.waitIfHeld();
    if (kind === 'image' || kind === 'video') {
      // Media submissions are created once processed: the answer names no post, only where to wait.
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              user_submitted_page: `https://www.reddit.com/user/${this.username}/submitted/`,
              websocket_url: 'wss://ws.fake.invalid/x',
            },
          },
        },
      };
    }
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { url: this.permalink(thing, true), drafts_count: 0, id: thing.name.slice(3), name: thing.name },
        },
      },
    };
  }

  private async gallery(body: Record<string, unknown>): Promise<FakeReply> {
    const sr = this.subreddit(typeof body.sr === 'string' ? body.sr : '');
    const refused = this.refusal(sr, body);
    if (refused) return refused;
    if (sr!.allowGalleries === false)
      return apiErrors(['NO_GALLERIES', "that subreddit doesn't allow galleries", 'sr']);
    const items = (body.items as Array<{ media_id: string }>) ?? [];
    const assets = [...this.leases.values()]
      .filter((l) => l.uploaded && l.mimetype.startsWith('image/'))
      .map((l) => l.assetId);
    if (items.some((i) => !assets.includes(i.media_id))) return apiErrors(['BAD_MEDIA', 'unknown media_id', 'items']);
    const thing = this.thing({
      kind: 'gallery',
      subreddit: sr!.name,
      title: String(body.title),
      text: typeof body.text === 'string' ? body.text : '',
      media: items.map((i) => i.media_id),
      flairId: typeof body.flair_id === 'string' ? body.flair_id : null,
      nsfw: body.nsfw === true,
      spoiler: body.spoiler === true,
      sendReplies: body.sendreplies !== false,
    });
    await this.waitIfHeld();
    return { status: 200, body: { json: { errors: [], data: { url: this.permalink(thing, true), id: thing.name } } } };
  }

  private comment(f: Record<string, string>): FakeReply {
    const refused = this.refusals.shift();
    if (refused) return apiErrors(refused);
    const parent = this.things.find((t) => t.name === f.thing_id);
    if (!parent) return apiErrors(['NO_THING_ID', 'that item does not exist', 'parent']);
    if ((f.text ?? '').length > 10_000) return apiErrors(['TOO_LONG', 'this is too long (max: 10000)', 'text']);
    const thing = this.thing({
      kind: 'comment',
      subreddit: parent.subreddit,
      text: f.text ?? '',
      parentId: parent.name,
    });
    parent.counts.replies += 1;
    return { status: 200, body: { json: { errors: [], data: { things: [{ kind: 't1', data: this.data(thing) }] } } } };
  }

  private root(thing: FakeRedditThing): FakeRedditThing {
    let current = thing;
    while (current.parentId) current = this.things.find((t) => t.name === current.parentId) ?? current;
    return current;
  }

  private permalink(thing: FakeRedditThing, absolute = false): string {
    const root = this.root(thing);
    const path = `/r/${thing.subreddit}/comments/${root.name.slice(3)}/${thing.kind === 'comment' ? `comment/${thing.name.slice(3)}/` : ''}`;
    return absolute ? `https://www.reddit.com${path}` : path;
  }

  private data(t: FakeRedditThing): Record<string, unknown> {
    const common = {
      id: t.name.slice(3),
      name: t.name,
      subreddit: t.subreddit,
      author: this.username,
      created_utc: t.createdUtc,
      score: t.counts.likes,
      permalink: this.permalink(t),
    };
    if (t.kind === 'comment') return { ...common, body: t.text, parent_id: t.parentId, link_id: this.root(t).name };
    return {
      ...common,
      title: t.title,
      selftext: t.text,
      is_self: t.kind === 'self',
      url: t.url ?? this.permalink(t, true),
      upvote_ratio: t.counts.upvoteRatio,
      num_comments: t.counts.replies,
      num_crossposts: t.counts.reposts,
      link_flair_template_id: t.flairId,
      over_18: t.nsfw,
      spoiler: t.spoiler,
    };
  }

  private listing(things: FakeRedditThing[]) {
    return {
      kind: 'Listing',
      data: {
        after: null,
        before: null,
        children: things.map((t) => ({ kind: t.kind === 'comment' ? 't1' : 't3', data: this.data(t) })),
      },
    };
  }
}

/** RedditFake for the shared provider contract suite: every post goes to r/test with one title. */
export function contractFake(): ProviderContractFake {
  const fake = new RedditFake();
  return {
    ...oauthContractFake(fake, {
      publishRoute: REDDIT_ROUTES.submit,
      rejectStatus: 403,
      revocation: {
        requests: () => fake.revocations,
        lastAccessToken: () => fake.lastAccessToken,
        expected: (token) => [
          {
            method: 'POST',
            path: '/api/v1/revoke_token',
            authorization: basicOf(fake.clientId, fake.clientSecret),
            form: fake.lastRefreshToken
              ? { token: fake.lastRefreshToken, token_type_hint: 'refresh_token' }
              : { token, token_type_hint: 'access_token' },
          },
        ],
      },
      posts: () =>
        fake.things.map((t) => ({
          platformPostId: t.name,
          text: t.text,
          mediaCount: t.media.length,
          inReplyTo: t.parentId,
        })),
      videoFixture: undefined,
      described: describedContract(fake, () => ({
        method: 'POST',
        url: `${fake.baseUrl}/api/submit`,
        headers: {
          authorization: `Bearer ${fake.issueToken()}`,
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'server:contract:1.0 (by /u/contract_redditor)',
        },
        body: new URLSearchParams({
          api_type: 'json',
          sr: 'test',
          kind: 'self',
          titel: 'renamed',
          text: 'x',
        }).toString(),
        renamed: { from: 'title', to: 'titel' },
      })),
    }),
    publishOptions: { subreddit: 'test', title: 'Contract post' },
  };
}
