import { createHash, randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { FakeVideo, FakeVideoOptions, FakeVideoProcessing } from './fake-video-processing';
import { describedContract, oauthContractFake, type ProviderContractFake } from './provider-contract';
import { linkedinDescription } from './descriptions/networks';
import { recordRevocation, type RevocationRequest } from './revocation';

/**
 * A local LinkedIn: the OAuth 2.0 authorization page (an "Allow" form; `consent()` is the test hook
 * that submits it), the token endpoint (code exchange with client credentials in the form body and,
 * when a challenge was sent, the PKCE verifier; refresh with rotation), OpenID Connect userinfo, and
 * the versioned REST API: organizationAcls (roleAssignee finder), organizations, posts (create,
 * author finder), images (initializeUpload + PUT upload), videos (initializeUpload with the file size,
 * one PUT per part answering an ETag, finalizeUpload with the ETags, GET until AVAILABLE after several
 * polls, or PROCESSING_FAILED), organizationalEntityShareStatistics and
 * memberCreatorPostAnalytics. REST calls must carry LinkedIn-Version and X-Restli-Protocol-Version.
 * Scopes are enforced as LinkedIn documents them; errors use LinkedIn's bodies.
 */
export const LINKEDIN_ROUTES = {
  authorize: 'GET /oauth/v2/authorization',
  consent: 'POST /oauth/v2/authorization',
  token: 'POST /oauth/v2/accessToken',
  revoke: 'POST /oauth/v2/revoke',
  userinfo: 'GET /v2/userinfo',
  acls: 'GET /rest/organizationAcls',
  organization: 'GET /rest/organizations/:id',
  createPost: 'POST /rest/posts',
  findPosts: 'GET /rest/posts',
  initializeUpload: 'POST /rest/images',
  upload: 'PUT /dms-uploads/:id',
  shareStatistics: 'GET /rest/organizationalEntityShareStatistics',
  memberAnalytics: 'GET /rest/memberCreatorPostAnalytics',
  createComment: 'POST /rest/socialActions/:urn/comments',
  listComments: 'GET /rest/socialActions/:urn/comments',
  videoAction: 'POST /rest/videos',
  videoPart: 'PUT /video-uploads/:id/:part',
  getVideo: 'GET /rest/videos/:urn',
} as const;

/** The Videos API's size cap (500 MB). */
export const LINKEDIN_FAKE_MAX_VIDEO_BYTES = 500 * 1024 * 1024;

/** A comment on a post (`POST /rest/socialActions/{urn}/comments`), as LinkedIn keeps it. */
export interface FakeLinkedInComment {
  id: string;
  /** `urn:li:comment:(<object>,<id>)`. */
  urn: string;
  actor: string;
  object: string;
  text: string;
  createdAt: number;
}

/** Every scope the fake knows, granted to tokens issued directly (issueToken). */
export const ALL_LINKEDIN_SCOPES = [
  'openid',
  'profile',
  'email',
  'w_member_social',
  'r_member_social',
  'r_member_postAnalytics',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

const RESERVED = '\\|{}@[]()<>#*_~';

export interface LinkedInFakeOptions extends FakeServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds (LinkedIn: 60 days). */
  accessTokenTtlSeconds?: number;
  /** Retry-After (seconds) of injected 429 answers. Default 2. */
  rateLimitResetSeconds?: number;
  /** Delay of the token endpoint's refresh answer, in ms (to widen races). Default 0. */
  refreshLatencyMs?: number;
  /** The members (the first is signed in on the authorization page). Default: one without pages. */
  members?: FakeLinkedInMember[];
  organizations?: FakeLinkedInOrganization[];
  /** Bytes per part of a video upload (LinkedIn: 4 MiB). */
  videoPartBytes?: number;
  /** Video processing: polls before AVAILABLE (default 2), longest video (default 30 min). */
  video?: FakeVideoOptions;
}

interface Video {
  urn: string;
  owner: string;
  size: number;
  partBytes: number;
  /** Parts received, by index. */
  parts: Array<Buffer | undefined>;
  etags: string[];
  uploadToken: string;
  /** Set by finalizeUpload: the whole file, in processing. */
  processing: FakeVideo | null;
}

export interface FakeLinkedInMember {
  sub: string;
  name: string;
  /** Page roles: organization id and role (ADMINISTRATOR, CONTENT_ADMINISTRATOR, ANALYST, ...). */
  roles?: Array<{ organizationId: string; role: string; state?: 'APPROVED' | 'REQUESTED' | 'REVOKED' }>;
}

export interface FakeLinkedInOrganization {
  id: string;
  localizedName: string;
  vanityName: string;
}

export interface FakeLinkedInPost {
  id: string;
  author: string;
  /** The commentary as received (little text). */
  commentary: string;
  /** What LinkedIn shows: the little text rendered (cut at the first unescaped reserved character). */
  text: string;
  images: string[];
  /** The video (`content.media.id` of a urn:li:video), null when none. */
  video: string | null;
  /** The alt text sent with each image (`altText`), null where none was. */
  imageAltTexts: Array<string | null>;
  createdAt: number;
  counts: FakeCounts & { impressions: number };
}

interface AccessToken {
  sub: string;
  scopes: Set<string>;
  expiresAt: number;
}

interface PendingAuthorization {
  id: string;
  params: Record<string, string>;
}

interface Grant {
  sub: string;
  redirectUri: string;
  challenge: string | null;
  scope: string;
  used: boolean;
}

interface Image {
  id: string;
  owner: string;
  bytes: number;
  uploaded: boolean;
}

const error = (status: number, code: string, message: string, serviceErrorCode = 100): FakeReply => ({
  status,
  body: { status, serviceErrorCode, code, message },
});
const UNAUTHORIZED = error(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
const denied = (what: string) => error(403, 'ACCESS_DENIED', `Not enough permissions to access: ${what}`);

/** LinkedIn's rendering of little text: escapes removed, hashtags and URLs kept, cut at a stray reserved character. */
export function renderLittleText(little: string): string {
  let out = '';
  for (let i = 0; i < little.length; i++) {
    const rest = little.slice(i);
    const url = /^https?:\/\/\S+/.exec(rest);
    if (url) {
      out += url[0];
      i += url[0].length - 1;
      continue;
    }
    const c = little[i];
    if (c === '\\' && i + 1 < little.length && RESERVED.includes(little[i + 1])) {
      out += little[++i];
      continue;
    }
    if (c === '#' && /^#[\p{L}\p{N}_]/u.test(rest)) {
      const tag = /^#[\p{L}\p{N}_]+/u.exec(rest)![0];
      out += tag;
      i += tag.length - 1;
      continue;
    }
    if (RESERVED.includes(c)) return out; // LinkedIn cuts the text here
    out += c;
  }
  return out;
}

export class LinkedInFake extends FakeHttpServer {
  readonly members: FakeLinkedInMember[];
  readonly organizations: FakeLinkedInOrganization[];
  readonly posts: FakeLinkedInPost[] = [];
  readonly comments: FakeLinkedInComment[] = [];
  /** Authorization requests received (query parameters), oldest first. */
  readonly authorizations: Array<Record<string, string>> = [];
  /** Refresh grants answered with new tokens. */
  refreshCount = 0;
  readonly clientId: string;
  readonly clientSecret: string;
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshTokens = new Map<string, { sub: string; scopes: Set<string> }>();
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly grants = new Map<string, Grant>();
  private readonly images = new Map<string, Image>();
  private readonly videoUploads = new Map<string, Video>();
  /** Videos LinkedIn received (finalized uploads) and their processing. */
  readonly videos: FakeVideoProcessing;
  /** initializeUpload calls of the Videos API (a video uploaded twice counts twice). */
  videoInits = 0;
  private nextId = 7_300_000_000_000_000_000n;
  private signedIn = 0;
  private failAfterCreate: number[] = [];

  /** LinkedIn-Version values the fake answers as sunset (426 NONEXISTENT_VERSION). */
  readonly retiredVersions = new Set<string>();

  constructor(private readonly opts: LinkedInFakeOptions = {}) {
    super(opts);
    this.videos = new FakeVideoProcessing({ maxDurationSeconds: 30 * 60, ...opts.video });
    this.clientId = opts.clientId ?? 'linkedin-client-id';
    this.clientSecret = opts.clientSecret ?? 'linkedin-client-secret';
    this.members = opts.members ?? [{ sub: 'contractMember1', name: 'Contract Member' }];
    this.organizations = opts.organizations ?? [];
    // Post creation against the Posts API reference as recorded (test/fixtures/networks/linkedin:
    // partly read, SOURCE.md says which tables); refused as LinkedIn refuses a malformed body, 422.
    // The other calls' tables could not be read: this fake's own checks stand.
    this.checkAgainst(linkedinDescription(), {
      refuse: (problems) => error(422, 'UNPROCESSABLE_ENTITY', problems.map((p) => `ERROR :: ${p}`).join('\n')),
      unchecked: (req) => req.route !== LINKEDIN_ROUTES.createPost,
    });
  }

  /** Environment for the app: client credentials and both hosts pointed at this fake. */
  appEnv(): Record<string, string> {
    return {
      LINKEDIN_CLIENT_ID: this.clientId,
      LINKEDIN_CLIENT_SECRET: this.clientSecret,
      LINKEDIN_AUTH_BASE_URL: this.baseUrl,
      LINKEDIN_API_BASE_URL: this.baseUrl,
    };
  }

  /** The member the authorization page consents for (index into `members`). */
  signInAs(sub: string): void {
    const index = this.members.findIndex((m) => m.sub === sub);
    if (index < 0) throw new Error(`No member ${sub}`);
    this.signedIn = index;
  }

  /** Issues an access token directly (adapter-level tests), with every scope unless told. */
  issueToken(sub = this.members[0].sub, scopes: string[] = ALL_LINKEDIN_SCOPES): string {
    const token = `AQ${randomBytes(12).toString('hex')}`;
    const ttl = this.opts.accessTokenTtlSeconds ?? 5_184_000;
    this.accessTokens.set(token, { sub, scopes: new Set(scopes), expiresAt: Date.now() + ttl * 1000 });
    this.lastAccessToken = token;
    return token;
  }

  /** Requests to the revocation endpoint, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The access token issued last. */
  lastAccessToken = '';

  /**
   * POST /oauth/v2/revoke: the app's `client_id` and `client_secret` and the access `token` in the form;
   * the token stops working (LinkedIn answers 200 with an empty body, also for a token it no longer knows).
   */
  private revoke(req: FakeRequest): FakeReply {
    const { form } = recordRevocation(req, this.revocations);
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    if (!form.token) return { status: 400, body: { error: 'invalid_request', error_description: 'token is missing' } };
    this.accessTokens.delete(form.token);
    return { status: 200, raw: Buffer.alloc(0) };
  }

  /**
   * The test hook standing in for a member who clicks "Allow" on the authorization page: loads the
   * page, submits its form, and returns the Location LinkedIn redirects to (our callback with
   * `code` and `state`, or `error`).
   */
  async consent(authorizationUrl: string, decision: 'allow' | 'cancel' = 'allow'): Promise<string> {
    const page = await fetch(authorizationUrl, { redirect: 'manual' });
    const html = await page.text();
    const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
    if (page.status !== 200 || !request) throw new Error(`authorization page answered ${page.status}: ${html}`);
    const res = await fetch(`${this.baseUrl}/oauth/v2/authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, decision }).toString(),
      redirect: 'manual',
    });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
    return location;
  }

  /** Every access token expires now (refresh tokens keep working). */
  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = Date.now() - 1000;
  }

  /** Every token, access and refresh, stops working (the member revoked the app). */
  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** Refresh tokens stop working; access tokens keep working until they expire. */
  revokeRefreshTokens(): void {
    this.refreshTokens.clear();
  }

  /** The next post is created, then answered with `status` (the outcome is unknown to the client). */
  failAfterCreateNext(status = 503): void {
    this.failAfterCreate.push(status);
  }

  setCounts(id: string, counts: Partial<FakeCounts & { impressions: number }>): void {
    const post = this.posts.find((p) => p.id === id);
    if (!post) throw new Error(`No post ${id}`);
    Object.assign(post.counts, counts);
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (method === 'GET' && path === '/oauth/v2/authorization') return LINKEDIN_ROUTES.authorize;
    if (method === 'POST' && path === '/oauth/v2/authorization') return LINKEDIN_ROUTES.consent;
    if (method === 'POST' && path === '/oauth/v2/accessToken') return LINKEDIN_ROUTES.token;
    if (method === 'POST' && path === '/oauth/v2/revoke') return LINKEDIN_ROUTES.revoke;
    if (method === 'GET' && path === '/v2/userinfo') return LINKEDIN_ROUTES.userinfo;
    if (method === 'GET' && path === '/rest/organizationAcls') return LINKEDIN_ROUTES.acls;
    if (method === 'GET' && /^\/rest\/organizations\/\d+$/.test(path)) return LINKEDIN_ROUTES.organization;
    if (method === 'POST' && path === '/rest/posts') return LINKEDIN_ROUTES.createPost;
    if (method === 'GET' && path === '/rest/posts') return LINKEDIN_ROUTES.findPosts;
    if (method === 'POST' && path === '/rest/images') return LINKEDIN_ROUTES.initializeUpload;
    if (method === 'PUT' && /^\/dms-uploads\/[^/]+$/.test(path)) return LINKEDIN_ROUTES.upload;
    if (method === 'POST' && path === '/rest/videos') return LINKEDIN_ROUTES.videoAction;
    if (method === 'PUT' && /^\/video-uploads\/[^/]+\/\d+$/.test(path)) return LINKEDIN_ROUTES.videoPart;
    if (method === 'GET' && /^\/rest\/videos\/[^/]+$/.test(path)) return LINKEDIN_ROUTES.getVideo;
    if (method === 'GET' && path === '/rest/organizationalEntityShareStatistics')
      return LINKEDIN_ROUTES.shareStatistics;
    if (method === 'GET' && path === '/rest/memberCreatorPostAnalytics') return LINKEDIN_ROUTES.memberAnalytics;
    if (/^\/rest\/socialActions\/[^/]+\/comments$/.test(path)) {
      if (method === 'POST') return LINKEDIN_ROUTES.createComment;
      if (method === 'GET') return LINKEDIN_ROUTES.listComments;
    }
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 401)
      return error(401, 'REVOKED_ACCESS_TOKEN', 'The token used in the request has been revoked by the user', 65601);
    if (status === 429) {
      return {
        ...error(
          429,
          'TOO_MANY_REQUESTS',
          'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
          101,
        ),
        headers: { 'retry-after': String(this.opts.rateLimitResetSeconds ?? 2) },
      };
    }
    if (status === 403) return denied('the requested resource');
    if (status === 422) return error(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /commentary :: the post was refused', 400);
    if (status === 400) return error(400, 'ILLEGAL_ARGUMENT', 'Bad request');
    return error(status, 'SERVER_ERROR', 'Internal Server Error', 500);
  }

  protected async handle(req: FakeRequest): Promise<FakeReply> {
    if (req.route === LINKEDIN_ROUTES.authorize) return this.authorizePage(req);
    if (req.route === LINKEDIN_ROUTES.consent) return this.consentSubmit(req);
    if (req.route === LINKEDIN_ROUTES.token) return this.token(req);
    if (req.route === LINKEDIN_ROUTES.revoke) return this.revoke(req);
    const token = this.authenticate(req);
    if (!token) return UNAUTHORIZED;
    if (req.route === LINKEDIN_ROUTES.upload) return this.upload(req, token);
    if (req.route === LINKEDIN_ROUTES.videoPart) return this.videoPart(req, token);
    if (req.route === LINKEDIN_ROUTES.userinfo) {
      if (!token.scopes.has('openid') || !token.scopes.has('profile')) return denied('/userinfo');
      const member = this.member(token.sub);
      const [given, ...family] = member.name.split(' ');
      return {
        status: 200,
        body: {
          sub: member.sub,
          name: member.name,
          given_name: given,
          family_name: family.join(' '),
          picture: `${this.baseUrl}/avatars/${member.sub}.jpg`,
          locale: { country: 'US', language: 'en' },
        },
      };
    }
    if (req.path.startsWith('/rest/')) {
      if (!/^\d{6}$/.test(String(req.headers['linkedin-version'] ?? ''))) {
        return error(
          400,
          'VERSION_MISSING',
          'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        );
      }
      const version = String(req.headers['linkedin-version']);
      if (this.retiredVersions.has(version)) {
        // LinkedIn's answer to a sunset LinkedIn-Version.
        return error(426, 'NONEXISTENT_VERSION', `Requested version ${version} is not active`);
      }
      if (req.headers['x-restli-protocol-version'] !== '2.0.0') {
        return error(400, 'ILLEGAL_ARGUMENT', 'X-Restli-Protocol-Version 2.0.0 is required');
      }
    }
    const q = req.url.searchParams;
    switch (req.route) {
      case LINKEDIN_ROUTES.acls: {
        if (q.get('q') !== 'roleAssignee') return error(400, 'ILLEGAL_ARGUMENT', 'Unknown finder');
        if (
          !['rw_organization_admin', 'r_organization_admin', 'w_organization_social', 'r_organization_social'].some(
            (s) => token.scopes.has(s),
          )
        ) {
          return denied('/organizationAcls');
        }
        const state = q.get('state');
        const role = q.get('role');
        const elements = (this.member(token.sub).roles ?? [])
          .filter((r) => (!state || (r.state ?? 'APPROVED') === state) && (!role || r.role === role))
          .map((r) => ({
            roleAssignee: `urn:li:person:${token.sub}`,
            state: r.state ?? 'APPROVED',
            role: r.role,
            organization: `urn:li:organization:${r.organizationId}`,
          }));
        const start = Number(q.get('start') ?? 0);
        const count = Number(q.get('count') ?? 10);
        return {
          status: 200,
          body: { elements: elements.slice(start, start + count), paging: { start, count, total: elements.length } },
        };
      }
      case LINKEDIN_ROUTES.organization: {
        const org = this.organizations.find((o) => o.id === req.path.split('/')[3]);
        if (!org) return error(404, 'NOT_FOUND', 'Organization not found');
        return {
          status: 200,
          body: { id: Number(org.id), localizedName: org.localizedName, vanityName: org.vanityName },
        };
      }
      case LINKEDIN_ROUTES.createPost:
        return this.createPost(req, token);
      case LINKEDIN_ROUTES.createComment:
      case LINKEDIN_ROUTES.listComments:
        return this.socialActionComments(req, token);
      case LINKEDIN_ROUTES.findPosts: {
        const author = q.get('author') ?? '';
        if (q.get('q') !== 'author') return error(400, 'ILLEGAL_ARGUMENT', 'Unknown finder');
        if (!this.mayRead(token, author)) return denied(`/posts?q=author (${author})`);
        const count = Math.min(Number(q.get('count') ?? 10), 100);
        const items = this.posts
          .filter((p) => p.author === author)
          .reverse()
          .slice(0, count);
        return {
          status: 200,
          body: {
            elements: items.map((p) => ({
              id: p.id,
              author: p.author,
              commentary: p.commentary,
              createdAt: p.createdAt,
              publishedAt: p.createdAt,
              lastModifiedAt: p.createdAt,
              lifecycleState: 'PUBLISHED',
              visibility: 'PUBLIC',
            })),
            paging: { start: 0, count, total: items.length },
          },
        };
      }
      case LINKEDIN_ROUTES.initializeUpload:
        return this.initializeUpload(req, token);
      case LINKEDIN_ROUTES.videoAction:
        return this.videoAction(req, token);
      case LINKEDIN_ROUTES.getVideo:
        await this.videos.beforeStatus();
        return this.getVideo(req, token);
      case LINKEDIN_ROUTES.shareStatistics: {
        const org = q.get('organizationalEntity') ?? '';
        const orgId = /^urn:li:organization:(\d+)$/.exec(org)?.[1];
        if (
          !orgId ||
          !token.scopes.has('rw_organization_admin') ||
          !this.hasRole(token.sub, orgId, ['ADMINISTRATOR'])
        ) {
          return denied('/organizationalEntityShareStatistics');
        }
        const list = /^List\((.*)\)$/.exec(q.get('shares') ?? q.get('ugcPosts') ?? '')?.[1] ?? '';
        const ids = list ? list.split(',').map((s) => decodeURIComponent(s)) : [];
        const posts = this.posts.filter((p) => p.author === org && (ids.length === 0 || ids.includes(p.id)));
        const sum = (f: (p: FakeLinkedInPost) => number) => posts.reduce((a, p) => a + f(p), 0);
        const impressions = sum((p) => p.counts.impressions);
        return {
          status: 200,
          body: {
            elements: [
              {
                organizationalEntity: org,
                ...(ids.length === 1 ? { share: ids[0] } : {}),
                totalShareStatistics: {
                  uniqueImpressionsCount: Math.floor(impressions * 0.8),
                  shareCount: sum((p) => p.counts.reposts),
                  engagement: impressions ? sum((p) => p.counts.likes + p.counts.replies) / impressions : 0,
                  clickCount: 0,
                  likeCount: sum((p) => p.counts.likes),
                  impressionCount: impressions,
                  commentCount: sum((p) => p.counts.replies),
                },
              },
            ],
            paging: { start: 0, count: 10, links: [] },
          },
        };
      }
      case LINKEDIN_ROUTES.memberAnalytics: {
        if (!token.scopes.has('r_member_postAnalytics')) return denied('/memberCreatorPostAnalytics');
        const entity = /^\((share|ugc):(.+)\)$/.exec(q.get('entity') ?? '');
        const urn = entity ? decodeURIComponent(entity[2]) : '';
        const post = this.posts.find((p) => p.id === urn);
        if (q.get('q') !== 'entity' || !post) return error(400, 'ILLEGAL_ARGUMENT', 'Invalid entity');
        if (post.author !== `urn:li:person:${token.sub}`) return denied('/memberCreatorPostAnalytics');
        const queryType = q.get('queryType') ?? '';
        const counts: Record<string, number> = {
          IMPRESSION: post.counts.impressions,
          MEMBERS_REACHED: Math.floor(post.counts.impressions * 0.8),
          RESHARE: post.counts.reposts,
          REACTION: post.counts.likes,
          COMMENT: post.counts.replies,
        };
        if (!(queryType in counts) || q.get('aggregation') !== 'TOTAL')
          return error(400, 'ILLEGAL_ARGUMENT', 'Invalid queryType');
        return {
          status: 200,
          body: {
            elements: [
              {
                count: counts[queryType],
                metricType: {
                  'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1': queryType,
                },
                targetEntity: { share: urn },
              },
            ],
          },
        };
      }
      default:
        return error(404, 'NOT_FOUND', `No route ${req.method} ${req.path}`);
    }
  }

  private authorizePage(req: FakeRequest): FakeReply {
    const params = Object.fromEntries(req.url.searchParams.entries());
    this.authorizations.push(params);
    if (params.client_id !== this.clientId) return { status: 400, raw: Buffer.from('invalid_client_id') };
    if (params.response_type !== 'code' || !params.redirect_uri || !params.state || !params.scope) {
      return { status: 400, raw: Buffer.from('invalid_request') };
    }
    const id = randomBytes(12).toString('base64url');
    this.pending.set(id, { id, params });
    const member = this.members[this.signedIn];
    const scopes = params.scope
      .split(' ')
      .map((s) => `<li>${s}</li>`)
      .join('');
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LinkedIn</title></head><body>` +
      `<h1>Allow access to your LinkedIn account?</h1><p>Signed in as ${member.name}</p><ul>${scopes}</ul>` +
      `<form method="post" action="/oauth/v2/authorization"><input type="hidden" name="request" value="${id}">` +
      `<button type="submit" name="decision" value="allow">Allow</button>` +
      `<button type="submit" name="decision" value="cancel">Cancel</button></form></body></html>`;
    return { status: 200, raw: Buffer.from(html), headers: { 'content-type': 'text/html; charset=utf-8' } };
  }

  private consentSubmit(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString());
    const pending = this.pending.get(form.get('request') ?? '');
    if (!pending) return { status: 400, raw: Buffer.from('unknown authorization request') };
    this.pending.delete(pending.id);
    const { params } = pending;
    const target = new URL(params.redirect_uri);
    target.searchParams.set('state', params.state);
    if (form.get('decision') !== 'allow') {
      target.searchParams.set('error', 'user_cancelled_authorize');
      target.searchParams.set('error_description', 'The user cancelled the authorization');
      return { status: 302, headers: { location: target.toString() } };
    }
    const code = `AQT${randomBytes(16).toString('base64url')}`;
    this.grants.set(code, {
      sub: this.members[this.signedIn].sub,
      redirectUri: params.redirect_uri,
      challenge: params.code_challenge_method === 'S256' ? (params.code_challenge ?? null) : null,
      scope: params.scope,
      used: false,
    });
    target.searchParams.set('code', code);
    return { status: 302, headers: { location: target.toString() } };
  }

  private async token(req: FakeRequest): Promise<FakeReply> {
    const form = new URLSearchParams(req.body.toString());
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
    }
    if (form.get('grant_type') === 'authorization_code') {
      const grant = this.grants.get(form.get('code') ?? '');
      const invalid = {
        status: 400,
        body: {
          error: 'invalid_request',
          error_description:
            'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.',
        },
      };
      if (!grant || grant.used || grant.redirectUri !== form.get('redirect_uri')) return invalid;
      if (grant.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return invalid;
      }
      grant.used = true;
      return { status: 200, body: this.tokens(grant.sub, new Set(grant.scope.split(' '))) };
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (this.opts.refreshLatencyMs) await new Promise((r) => setTimeout(r, this.opts.refreshLatencyMs));
      const old = form.get('refresh_token') ?? '';
      const entry = this.refreshTokens.get(old);
      if (!entry) {
        return {
          status: 400,
          body: {
            error: 'invalid_request',
            error_description: 'The provided refresh token is invalid or has been revoked',
          },
        };
      }
      this.refreshTokens.delete(old); // rotation: a refresh token works once
      this.refreshCount++;
      return { status: 200, body: this.tokens(entry.sub, entry.scopes) };
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' } };
  }

  private tokens(sub: string, scopes: Set<string>) {
    const accessToken = this.issueToken(sub, [...scopes]);
    const refreshToken = `AQX${randomBytes(16).toString('hex')}`;
    this.refreshTokens.set(refreshToken, { sub, scopes });
    return {
      access_token: accessToken,
      expires_in: this.opts.accessTokenTtlSeconds ?? 5_184_000,
      refresh_token: refreshToken,
      refresh_token_expires_in: 31_536_000,
      // LinkedIn lists the granted scopes comma-separated.
      scope: [...scopes].join(','),
      token_type: 'Bearer',
    };
  }

  private authenticate(req: FakeRequest): AccessToken | null {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry : null;
  }

  private member(sub: string): FakeLinkedInMember {
    const member = this.members.find((m) => m.sub === sub);
    if (!member) throw new Error(`No member ${sub}`);
    return member;
  }

  private hasRole(sub: string, organizationId: string, roles: string[]): boolean {
    return (this.member(sub).roles ?? []).some(
      (r) => r.organizationId === organizationId && roles.includes(r.role) && (r.state ?? 'APPROVED') === 'APPROVED',
    );
  }

  /** May this token post as `author` (w_member_social for oneself, w_organization_social + a posting role)? */
  private mayWrite(token: AccessToken, author: string): boolean {
    if (author === `urn:li:person:${token.sub}`) return token.scopes.has('w_member_social');
    const orgId = /^urn:li:organization:(\d+)$/.exec(author)?.[1];
    return Boolean(
      orgId &&
      token.scopes.has('w_organization_social') &&
      this.hasRole(token.sub, orgId, ['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR']),
    );
  }

  /** May this token read `author`'s posts (r_member_social, restricted; r_organization_social + a role)? */
  private mayRead(token: AccessToken, author: string): boolean {
    if (author === `urn:li:person:${token.sub}`) return token.scopes.has('r_member_social');
    const orgId = /^urn:li:organization:(\d+)$/.exec(author)?.[1];
    return Boolean(
      orgId &&
      token.scopes.has('r_organization_social') &&
      this.hasRole(token.sub, orgId, ['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR', 'ANALYST']),
    );
  }

  /**
   * The Comments API on a post: create (`{actor, object, message: {text}}`, the object the URN of the
   * path; answers 201 with the comment and its `$URN`) and list (`elements`, oldest first).
   */
  private socialActionComments(req: FakeRequest, token: AccessToken): FakeReply {
    const object = decodeURIComponent(req.path.split('/')[3]);
    const post = this.posts.find((p) => p.id === object);
    if (!post) return error(404, 'NOT_FOUND', `Post ${object} not found`);
    const json = (c: FakeLinkedInComment) => ({
      id: c.id,
      $URN: c.urn,
      actor: c.actor,
      object: c.object,
      message: { text: c.text },
      created: { actor: c.actor, time: c.createdAt },
    });
    if (req.route === LINKEDIN_ROUTES.listComments) {
      const elements = this.comments.filter((c) => c.object === object).map(json);
      return { status: 200, body: { elements, paging: { start: 0, count: elements.length, total: elements.length } } };
    }
    let body: { actor?: unknown; object?: unknown; message?: { text?: unknown } };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return error(400, 'ILLEGAL_ARGUMENT', 'Body is not JSON');
    }
    const actor = typeof body.actor === 'string' ? body.actor : '';
    const text = typeof body.message?.text === 'string' ? body.message.text : '';
    if (!actor || body.object !== object || !text) {
      return error(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /actor, /object (the post of the path) and /message are required',
        400,
      );
    }
    if (!this.mayWrite(token, actor)) return denied(`/socialActions/comments (actor ${actor})`);
    const id = String(this.nextId++);
    const comment = { id, urn: `urn:li:comment:(${object},${id})`, actor, object, text, createdAt: Date.now() };
    this.comments.push(comment);
    post.counts.replies++;
    return { status: 201, headers: { 'x-restli-id': id }, body: json(comment) };
  }

  private async createPost(req: FakeRequest, token: AccessToken): Promise<FakeReply> {
    let body: {
      author?: unknown;
      commentary?: unknown;
      lifecycleState?: unknown;
      visibility?: unknown;
      distribution?: { feedDistribution?: unknown };
      content?: {
        media?: { id?: unknown; altText?: unknown };
        multiImage?: { images?: Array<{ id?: unknown; altText?: unknown }> };
      };
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return error(400, 'ILLEGAL_ARGUMENT', 'Body is not JSON');
    }
    const author = typeof body.author === 'string' ? body.author : '';
    const commentary = typeof body.commentary === 'string' ? body.commentary : '';
    if (!author || body.lifecycleState !== 'PUBLISHED' || !body.visibility || !body.distribution?.feedDistribution) {
      return error(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /author, /visibility, /distribution and /lifecycleState are required',
        400,
      );
    }
    if (!this.mayWrite(token, author)) return denied(`/posts (author ${author})`);
    if (commentary.length > 3000) {
      return error(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /commentary :: length of commentary exceeds 3000', 400);
    }
    const mediaId = body.content?.media?.id;
    let video: string | null = null;
    if (typeof mediaId === 'string' && mediaId.startsWith('urn:li:video:')) {
      const upload = this.videoUploads.get(mediaId);
      if (!upload || upload.owner !== author || upload.processing?.state !== 'ready') {
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: /content/media/id :: video ${mediaId} is not AVAILABLE`,
          400,
        );
      }
      video = mediaId;
    }
    const imageEntries = video
      ? []
      : typeof body.content?.media?.id === 'string'
        ? [body.content.media]
        : (body.content?.multiImage?.images ?? []);
    const imageIds = imageEntries.map((i) => String(i.id));
    const altTexts = imageEntries.map((i) => (i.altText === undefined ? null : i.altText));
    if (altTexts.some((a) => a !== null && (typeof a !== 'string' || a.length > 4086))) {
      return error(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /content :: altText must be a string of at most 4086', 400);
    }
    if (body.content?.multiImage && (imageIds.length < 2 || imageIds.length > 20)) {
      return error(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /content/multiImage/images :: between 2 and 20 images', 400);
    }
    for (const id of imageIds) {
      const image = this.images.get(id);
      if (!image || !image.uploaded || image.owner !== author) {
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: /content :: image ${id} is not available to ${author}`,
          400,
        );
      }
    }
    const text = renderLittleText(commentary);
    const duplicate = this.posts.find(
      (p) => p.author === author && p.text === text && p.images.length === imageIds.length && p.video === video,
    );
    if (duplicate) {
      return {
        status: 422,
        body: {
          errorDetailType: 'com.linkedin.common.error.BadRequest',
          message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${duplicate.id}`,
          errorDetails: {
            inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }],
          },
          status: 422,
        },
      };
    }
    const post: FakeLinkedInPost = {
      id: `urn:li:share:${this.nextId++}`,
      author,
      commentary,
      text,
      images: imageIds,
      video,
      imageAltTexts: altTexts as Array<string | null>,
      createdAt: Date.now(),
      counts: { likes: 0, reposts: 0, replies: 0, impressions: 0 },
    };
    this.posts.push(post);
    await this.waitIfHeld();
    const failStatus = this.failAfterCreate.shift();
    if (failStatus !== undefined) return this.injectedFailure(failStatus);
    return { status: 201, headers: { 'x-restli-id': post.id, 'x-linkedin-id': post.id } };
  }

  private initializeUpload(req: FakeRequest, token: AccessToken): FakeReply {
    if (req.url.searchParams.get('action') !== 'initializeUpload')
      return error(400, 'ILLEGAL_ARGUMENT', 'Unknown action');
    let body: { initializeUploadRequest?: { owner?: unknown } };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return error(400, 'ILLEGAL_ARGUMENT', 'Body is not JSON');
    }
    const owner = typeof body.initializeUploadRequest?.owner === 'string' ? body.initializeUploadRequest.owner : '';
    if (!owner) return error(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /initializeUploadRequest/owner is required', 400);
    if (!this.mayWrite(token, owner)) return denied(`/images (owner ${owner})`);
    const key = `D4E10AQ${randomBytes(8).toString('hex')}`;
    const urn = `urn:li:image:${key}`;
    this.images.set(urn, { id: urn, owner, bytes: 0, uploaded: false });
    return {
      status: 200,
      body: {
        value: {
          uploadUrlExpiresAt: Date.now() + 3600_000,
          uploadUrl: `${this.baseUrl}/dms-uploads/${key}?ca=vector_feedshare&cn=uploads`,
          image: urn,
        },
      },
    };
  }

  /** POST /rest/videos?action=initializeUpload | finalizeUpload. */
  private videoAction(req: FakeRequest, token: AccessToken): FakeReply {
    let body: {
      initializeUploadRequest?: { owner?: unknown; fileSizeBytes?: unknown };
      finalizeUploadRequest?: { video?: unknown; uploadToken?: unknown; uploadedPartIds?: unknown };
    };
    try {
      body = JSON.parse(req.body.toString()) as typeof body;
    } catch {
      return error(400, 'ILLEGAL_ARGUMENT', 'Body is not JSON');
    }
    const action = req.url.searchParams.get('action');
    if (action === 'initializeUpload') {
      const owner = typeof body.initializeUploadRequest?.owner === 'string' ? body.initializeUploadRequest.owner : '';
      const size = Number(body.initializeUploadRequest?.fileSizeBytes);
      if (!owner || !Number.isInteger(size) || size <= 0) {
        return error(
          422,
          'UNPROCESSABLE_ENTITY',
          'ERROR :: /initializeUploadRequest :: owner and fileSizeBytes are required',
          400,
        );
      }
      if (!this.mayWrite(token, owner)) return denied(`/videos (owner ${owner})`);
      if (size > LINKEDIN_FAKE_MAX_VIDEO_BYTES) {
        return error(400, 'ILLEGAL_ARGUMENT', `fileSizeBytes ${size} exceeds ${LINKEDIN_FAKE_MAX_VIDEO_BYTES}`);
      }
      this.videoInits += 1;
      const key = `D5610AQ${randomBytes(8).toString('hex')}`;
      const urn = `urn:li:video:${key}`;
      const partBytes = this.opts.videoPartBytes ?? 4 * 1024 * 1024;
      const count = Math.ceil(size / partBytes);
      const upload: Video = {
        urn,
        owner,
        size,
        partBytes,
        parts: new Array<Buffer | undefined>(count),
        etags: [],
        uploadToken: count > 1 ? `token-${key}` : '',
        processing: null,
      };
      this.videoUploads.set(urn, upload);
      const uploadInstructions = Array.from({ length: count }, (_, i) => ({
        uploadUrl: `${this.baseUrl}/video-uploads/${key}/${i}`,
        firstByte: i * partBytes,
        lastByte: Math.min(size, (i + 1) * partBytes) - 1,
      }));
      return {
        status: 200,
        body: {
          value: {
            uploadUrlsExpireAt: Date.now() + 3600_000,
            video: urn,
            uploadInstructions,
            uploadToken: upload.uploadToken,
          },
        },
      };
    }
    if (action === 'finalizeUpload') {
      const request = body.finalizeUploadRequest;
      const upload = typeof request?.video === 'string' ? this.videoUploads.get(request.video) : undefined;
      if (!upload || !this.mayWrite(token, upload.owner)) return error(400, 'ILLEGAL_ARGUMENT', 'Unknown video');
      if (upload.processing) return error(400, 'ILLEGAL_ARGUMENT', 'The upload is already finalized');
      const ids = Array.isArray(request?.uploadedPartIds) ? request.uploadedPartIds : [];
      if ((request?.uploadToken ?? '') !== upload.uploadToken)
        return error(400, 'ILLEGAL_ARGUMENT', 'Wrong uploadToken');
      if (
        upload.parts.some((p) => !p) ||
        ids.length !== upload.etags.length ||
        ids.some((id, i) => id !== upload.etags[i])
      ) {
        return error(400, 'ILLEGAL_ARGUMENT', 'uploadedPartIds do not match the parts received, in order');
      }
      const bytes = Buffer.concat(upload.parts as Buffer[]);
      if (bytes.length !== upload.size)
        return error(400, 'ILLEGAL_ARGUMENT', 'The parts do not add up to fileSizeBytes');
      upload.processing = this.videos.receive(bytes, 'video/mp4', upload.urn);
      return { status: 200, body: {} };
    }
    return error(400, 'ILLEGAL_ARGUMENT', 'Unknown action');
  }

  private videoPart(req: FakeRequest, token: AccessToken): FakeReply {
    const [, , key, part] = req.path.split('/');
    const upload = this.videoUploads.get(`urn:li:video:${key}`);
    const index = Number(part);
    if (!upload || !this.mayWrite(token, upload.owner) || !(index < upload.parts.length)) {
      return error(400, 'ILLEGAL_ARGUMENT', 'Unknown upload');
    }
    const expected = Math.min(upload.size, (index + 1) * upload.partBytes) - index * upload.partBytes;
    if (req.body.length !== expected) {
      return error(400, 'ILLEGAL_ARGUMENT', `Part ${index} must be ${expected} bytes (got ${req.body.length})`);
    }
    upload.parts[index] = Buffer.from(req.body);
    const etag = `/dms/prv/vid/${key}/${index}/${createHash('md5').update(req.body).digest('hex')}`;
    upload.etags[index] = etag;
    return { status: 200, headers: { etag } };
  }

  /** GET /rest/videos/{urn}: WAITING_UPLOAD, PROCESSING (several polls), AVAILABLE or PROCESSING_FAILED. */
  private getVideo(req: FakeRequest, token: AccessToken): FakeReply {
    const urn = decodeURIComponent(req.path.slice('/rest/videos/'.length));
    const upload = this.videoUploads.get(urn);
    if (!upload || !this.mayWrite(token, upload.owner)) return error(404, 'NOT_FOUND', `No video ${urn}`);
    const json: Record<string, unknown> = { id: urn, owner: upload.owner, status: 'WAITING_UPLOAD' };
    if (upload.processing) {
      const video = this.videos.poll(upload.processing);
      json.status =
        video.state === 'ready' ? 'AVAILABLE' : video.state === 'failed' ? 'PROCESSING_FAILED' : 'PROCESSING';
      if (video.state === 'failed') json.processingFailureReason = video.error;
      if (video.state === 'ready') json.duration = Math.round((video.probe?.durationSeconds ?? 0) * 1000);
    }
    return { status: 200, body: json };
  }

  private upload(req: FakeRequest, token: AccessToken): FakeReply {
    const image = this.images.get(`urn:li:image:${req.path.split('/')[2]}`);
    if (!image || !this.mayWrite(token, image.owner)) return error(400, 'ILLEGAL_ARGUMENT', 'Unknown upload');
    if (req.body.length === 0) return error(400, 'ILLEGAL_ARGUMENT', 'Empty upload');
    image.bytes = req.body.length;
    image.uploaded = true;
    return { status: 201 };
  }
}

/** LinkedInFake for the shared provider contract suite: one member without pages (see provider-contract.ts). */
export function contractFake(): ProviderContractFake {
  const fake = new LinkedInFake();
  return oauthContractFake(fake, {
    publishRoute: LINKEDIN_ROUTES.createPost,
    rejectStatus: 422,
    revocation: {
      requests: () => fake.revocations,
      lastAccessToken: () => fake.lastAccessToken,
      expected: (token) => [
        {
          method: 'POST',
          path: '/oauth/v2/revoke',
          form: { client_id: fake.clientId, client_secret: fake.clientSecret, token },
        },
      ],
    },
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/rest/posts`,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${fake.issueToken()}`,
        'linkedin-version': '202610',
        'x-restli-protocol-version': '2.0.0',
      },
      body: JSON.stringify({
        author: `urn:li:person:${fake.members[0].sub}`,
        text: 'renamed',
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
        lifecycleState: 'PUBLISHED',
      }),
      renamed: { from: 'commentary', to: 'text' },
    })),
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: p.id,
        text: p.text,
        mediaCount: p.images.length + (p.video ? 1 : 0),
        mediaAltTexts: p.imageAltTexts,
        inReplyTo: null,
      })),
  });
}
