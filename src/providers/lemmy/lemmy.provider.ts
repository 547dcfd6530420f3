import { OutboundHttp, SsrfBlockedError, parseJsonBody } from '../../common/http/outbound-http';
import { commonDraftProblems } from '../draft-validation.util';
import { multipartForm } from '../multipart-form.util';
import { comparableText } from '../plugin-helpers.util';
import { ApiResponse, CallKind, clipErrorText, mapHttpFailure, mapThrown } from '../provider-http.util';
import { asArray, asId, asNonEmptyString, asNumber, asObject, asString, at } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  TransientProviderError,
} from '../provider.errors';
import { defineProvider } from '../provider-plugin';
import type {
  ChannelLimits,
  CommentInput,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
  PublishedRef,
  SocialProvider,
} from '../social-provider.interface';
import { LemmyApiVersion, LemmyCredentials, LemmyCredentialsDto, parseLemmyCredentials } from './lemmy.credentials';
import { LEMMY_LIMITS } from './lemmy.limits';
import { LEMMY_OPTIONS_SCHEMA, LemmyOptions } from './lemmy.options';

const LEMMY = 'Lemmy';
/** Checkpoint key: the URL of the image this publication uploaded to the instance. */
const IMAGE_CHECKPOINT = 'lemmyImageUrl';
/** Lemmy's error codes that mean the session or the login is no longer valid. */
const AUTH_ERRORS = new Set(['not_logged_in', 'incorrect_login', 'invalid_auth_token', 'password_incorrect']);
const RATE_LIMITED = 'rate_limit_error';

interface LemmyRequest {
  method: 'GET' | 'POST';
  /** Path under /api/<version>, e.g. `/post`; or an absolute path (pict-rs) when `raw`. */
  path: string;
  json?: unknown;
  form?: ReturnType<typeof multipartForm>;
  /** The path is not under /api/<version> (pict-rs upload of 0.19). */
  raw?: boolean;
}

/** Lemmy's error code (`{"error": "couldnt_find_community"}`), and its message when it gives one. */
function lemmyError(data: unknown): string {
  const obj = asObject(data);
  const code = asString(obj?.error) ?? '';
  const message = asString(obj?.message);
  return message && message !== code ? `${code} (${message})` : code;
}

/**
 * One account on one instance. Calls /api/v3 (Lemmy 0.19) or /api/v4 (Lemmy 1.x), whichever the
 * instance answered at connect, with the session token as a Bearer token (both accept it; 0.19's
 * pict-rs proxy reads the `jwt` cookie, sent too). With a stored password a refused session logs in
 * again once; the new token is returned to be stored.
 */
class LemmySession {
  refreshed = false;

  constructor(
    private readonly http: OutboundHttp,
    readonly creds: LemmyCredentials,
  ) {}

  get version(): LemmyApiVersion {
    return this.creds.apiVersion;
  }

  async send(req: LemmyRequest, jwt: string | null = this.creds.jwt): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (jwt) {
      headers.authorization = `Bearer ${jwt}`;
      headers.cookie = `jwt=${jwt}`;
    }
    let body: string | NodeJS.ReadableStream | undefined;
    if (req.form) {
      headers['content-type'] = req.form.contentType;
      headers['content-length'] = String(req.form.contentLength);
      body = req.form.body;
    } else if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const url = `${this.creds.instanceUrl}${req.raw ? '' : `/api/${this.version}`}${req.path}`;
    const res = await this.http.request({
      method: req.method,
      url,
      headers,
      body: body as never,
      timeoutMs: req.form ? 120_000 : undefined,
    });
    return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
  }

  /** POST login with the stored user name and password; the session token. */
  async login(): Promise<ApiResponse> {
    return this.send(
      {
        method: 'POST',
        path: this.version === 'v4' ? '/account/auth/login' : '/user/login',
        json: {
          username_or_email: this.creds.username,
          password: this.creds.password,
          ...(this.version === 'v4' ? { stay_logged_in: true } : {}),
        },
      },
      null,
    );
  }

  /** A 2xx answer, or the adapter's error; a refused session is renewed once with the password. */
  async call(req: LemmyRequest, kind: CallKind): Promise<ApiResponse> {
    let res: ApiResponse;
    try {
      res = await this.send(req);
      if (this.isAuthFailure(res) && this.creds.password && this.creds.username && !req.form) {
        const login = await this.login();
        const jwt = asNonEmptyString(asObject(login.data)?.jwt);
        if (login.status === 200 && jwt) {
          this.creds.jwt = jwt;
          this.refreshed = true;
          res = await this.send(req);
        }
      }
    } catch (err) {
      req.form?.body.destroy();
      throw mapThrown(LEMMY, err);
    }
    if (res.status >= 200 && res.status < 300) return res;
    const text = lemmyError(res.data);
    const code = asString(asObject(res.data)?.error);
    if (this.isAuthFailure(res)) {
      throw new CredentialsRevokedError(
        `Lemmy no longer accepts the account's session: ${clipErrorText(text)}`,
        res.status,
      );
    }
    if (code === RATE_LIMITED) throw new TransientProviderError(`Lemmy rate limit reached: ${text}`, 429);
    return Promise.reject(mapHttpFailure(LEMMY, res.status, res.headers, text, kind));
  }

  private isAuthFailure(res: ApiResponse): boolean {
    const code = asString(asObject(res.data)?.error) ?? '';
    return res.status === 401 || (res.status === 400 && AUTH_ERRORS.has(code));
  }
}

/**
 * Lemmy adapter. Posts go to a community (`options.community`, resolved to its id) with a title; the
 * content is the post's body (markdown), one image is uploaded to the instance (pict-rs) and becomes
 * the post's `url` (or goes into the body when the post links elsewhere). The first comment is a
 * comment on the post. Lemmy has no idempotency key: the uploaded image is checkpointed, and a retry
 * first reads the community's newest posts for one by this account with the same title and body.
 */
export class LemmyProvider implements SocialProvider {
  readonly id = 'lemmy' as const;

  constructor(private readonly http: OutboundHttp) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const given = parseLemmyCredentials(credentials);
    const host = new URL(given.instanceUrl).host;
    const reach = async <T>(what: () => Promise<T>): Promise<T> => {
      try {
        return await what();
      } catch (err) {
        if (err instanceof SsrfBlockedError)
          throw new InvalidCredentialsError(`The instanceUrl is not allowed: ${err.message}`);
        throw new InvalidCredentialsError(
          `The Lemmy instance ${host} could not be reached${err instanceof Error ? `: ${err.message}` : ''}`,
        );
      }
    };
    const version = await reach(() => this.detectVersion(given.instanceUrl));
    const session = new LemmySession(this.http, { ...given, apiVersion: version.api });
    if (given.password && given.username) {
      const login = await reach(() => session.login());
      const jwt = asNonEmptyString(asObject(login.data)?.jwt);
      if (login.status !== 200 || !jwt) {
        const code = lemmyError(login.data) || `HTTP ${login.status}`;
        throw new InvalidCredentialsError(
          code.startsWith('missing_totp_token')
            ? 'The Lemmy account uses two-factor authentication: connect it with a session token (jwt) instead'
            : `Lemmy refused the username or password: ${code}`,
          login.status,
        );
      }
      session.creds.jwt = jwt;
    }
    const me = await reach(() => session.send({ method: 'GET', path: version.api === 'v4' ? '/account' : '/site' }));
    const person = asObject(
      version.api === 'v4'
        ? at(me.data, 'local_user_view', 'person')
        : at(me.data, 'my_user', 'local_user_view', 'person'),
    );
    const personId = asId(person?.id);
    if (me.status === 401 || me.status === 400 || !person || !personId) {
      throw new InvalidCredentialsError(
        `Lemmy refused the session token${lemmyError(me.data) ? `: ${lemmyError(me.data)}` : ''}`,
        me.status,
      );
    }
    const name = asNonEmptyString(person.name) ?? given.username ?? personId;
    return {
      externalId: `${host}:${personId}`,
      name: asNonEmptyString(person.display_name) ?? name,
      handle: `@${name}@${host}`,
      avatarUrl: asNonEmptyString(person.avatar) ?? null,
      profileUrl:
        asNonEmptyString(person.actor_id) ?? asNonEmptyString(person.ap_id) ?? `${given.instanceUrl}/u/${name}`,
      limits: { ...LEMMY_LIMITS, supportedMimeTypes: [...LEMMY_LIMITS.supportedMimeTypes] },
      credentials: this.stored(session.creds, personId, version.api),
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(LEMMY, post.content, post.media, limits);
    const length = [...post.content].length;
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; Lemmy allows ${limits.maxCharacters}`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput<LemmyOptions>): Promise<PublishResult> {
    const session = new LemmySession(this.http, parseLemmyCredentials(input.credentials));
    const options = input.options ?? {};
    if (!options.community || !options.title) {
      throw new ContentRejectedError('Lemmy needs options.community and options.title');
    }
    const communityId = await this.communityId(session, options.community);
    if ((input.attempt ?? 1) > 1) {
      const found = await this.findPost(session, communityId, options.title, input.content);
      if (found) return this.withCredentials(found, session);
    }
    const image = input.media[0] ? await this.uploadImage(session, input, input.media[0]) : null;
    let body = input.content;
    let url = options.url ?? undefined;
    if (image && url) body = `${body}\n\n![${input.media[0].altText ?? ''}](${image})`.trim();
    else if (image) url = image;
    const res = await session.call(
      {
        method: 'POST',
        path: '/post',
        json: {
          name: options.title,
          community_id: Number(communityId),
          ...(body !== '' ? { body } : {}),
          ...(url ? { url } : {}),
          ...(image && url === image && input.media[0].altText ? { alt_text: input.media[0].altText } : {}),
          ...(options.nsfw ? { nsfw: true } : {}),
        },
      },
      'content',
    );
    return this.withCredentials(this.postRef(at(res.data, 'post_view', 'post'), session, res.status), session);
  }

  async comment(input: CommentInput): Promise<PublishResult> {
    const session = new LemmySession(this.http, parseLemmyCredentials(input.credentials));
    const res = await session.call(
      {
        method: 'POST',
        path: '/comment',
        json: { content: input.content, post_id: Number(input.post.platformPostId) },
      },
      'content',
    );
    const comment = asObject(at(res.data, 'comment_view', 'comment'));
    const id = asId(comment?.id);
    if (!id) throw new TransientProviderError('Lemmy accepted the comment but returned no id', res.status);
    return this.withCredentials(
      { platformPostId: id, url: asNonEmptyString(comment?.ap_id) ?? `${session.creds.instanceUrl}/comment/${id}` },
      session,
    );
  }

  /** Upvotes and comments of the post (0.19: `post_view.counts`; 1.x: on the post itself), and its score. */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const session = new LemmySession(this.http, parseLemmyCredentials(credentials));
    const res = await session.call(
      { method: 'GET', path: `/post?id=${encodeURIComponent(ref.platformPostId)}` },
      'content',
    );
    const view = at(res.data, 'post_view');
    const counts = asObject(at(view, 'counts')) ?? asObject(at(view, 'post')) ?? {};
    const n = (name: string) => asNumber(counts[name]) ?? null;
    return {
      metrics: {
        likes: n('upvotes'),
        reposts: null,
        replies: n('comments'),
        quotes: null,
        impressions: null,
        raw: { score: n('score'), upvotes: n('upvotes'), downvotes: n('downvotes'), comments: n('comments') },
      },
      ...(session.refreshed
        ? { credentials: this.stored(session.creds, session.creds.personId, session.version) }
        : {}),
    };
  }

  /** `/api/v4/site` answers on Lemmy 1.x, `/api/v3/site` on 0.19 (both give `version`). */
  private async detectVersion(instanceUrl: string): Promise<{ api: LemmyApiVersion; version: string }> {
    for (const api of ['v4', 'v3'] as const) {
      const res = await this.http.request({
        method: 'GET',
        url: `${instanceUrl}/api/${api}/site`,
        headers: { accept: 'application/json' },
      });
      const version = asNonEmptyString(asObject(parseJsonBody(res.body))?.version);
      if (res.status === 200 && version) return { api, version };
    }
    throw new InvalidCredentialsError(
      `The server at ${new URL(instanceUrl).host} did not answer like a Lemmy instance (no /api/v3/site or /api/v4/site)`,
    );
  }

  private stored(
    creds: LemmyCredentials,
    personId: string | null,
    apiVersion: LemmyApiVersion,
  ): Record<string, unknown> {
    return {
      instanceUrl: creds.instanceUrl,
      ...(creds.username && creds.password ? { username: creds.username, password: creds.password } : {}),
      ...(creds.jwt ? { jwt: creds.jwt } : {}),
      apiVersion,
      ...(personId ? { personId } : {}),
    };
  }

  private withCredentials(result: PublishResult, session: LemmySession): PublishResult {
    return session.refreshed
      ? { ...result, credentials: this.stored(session.creds, session.creds.personId, session.version) }
      : result;
  }

  private postRef(post: unknown, session: LemmySession, status: number): PublishResult {
    const id = asId(at(post, 'id'));
    if (!id) throw new TransientProviderError('Lemmy accepted the post but returned no id', status);
    return { platformPostId: id, url: `${session.creds.instanceUrl}/post/${id}` };
  }

  private async communityId(session: LemmySession, name: string): Promise<string> {
    try {
      const res = await session.call({ method: 'GET', path: `/community?name=${encodeURIComponent(name)}` }, 'content');
      const id = asId(at(res.data, 'community_view', 'community', 'id'));
      if (!id) throw new ContentRejectedError(`Lemmy did not find the community ${name}`);
      return id;
    } catch (err) {
      if (err instanceof ContentRejectedError) {
        throw new ContentRejectedError(
          `Lemmy has no community ${name} on ${new URL(session.creds.instanceUrl).host}: ${err.message}`,
          err.status,
        );
      }
      throw err;
    }
  }

  private async findPost(
    session: LemmySession,
    communityId: string,
    title: string,
    content: string,
  ): Promise<PublishResult | null> {
    // 0.19's SortType is PascalCase (`New`), 1.x's PostSortType snake_case (`new`); 1.x pages its
    // lists as `items` (PagedResponse), 0.19 answers `posts` (lemmy-js-client 0.19.9, 1.0.0-beta.2).
    const sort = session.version === 'v4' ? 'new' : 'New';
    const res = await session.call(
      { method: 'GET', path: `/post/list?community_id=${encodeURIComponent(communityId)}&sort=${sort}&limit=20` },
      'content',
    );
    const body = comparableText(content);
    const list = asObject(res.data);
    for (const view of asArray(session.version === 'v4' ? list?.items : list?.posts) ?? []) {
      const post = asObject(at(view, 'post'));
      if (!post || asId(post.creator_id) !== session.creds.personId || asString(post.name) !== title) continue;
      if (comparableText(asString(post.body) ?? '').startsWith(body)) return this.postRef(post, session, res.status);
    }
    return null;
  }

  /** The image on the instance: 0.19 POST /pictrs/image (`files[0].file`), 1.x POST /api/v4/image (`image_url`). */
  private async uploadImage(session: LemmySession, input: PublishInput, media: PublishMedia): Promise<string> {
    const saved = asNonEmptyString(input.checkpoint?.[IMAGE_CHECKPOINT]);
    if (saved) return saved;
    const form = multipartForm([{ name: 'images[]', media }]);
    const res = await session.call(
      session.version === 'v4'
        ? { method: 'POST', path: '/image', form }
        : { method: 'POST', path: '/pictrs/image', form, raw: true },
      'media',
    );
    const file = asNonEmptyString(at(asArray(asObject(res.data)?.files)?.[0], 'file'));
    const url =
      asNonEmptyString(asObject(res.data)?.image_url) ??
      (file ? `${session.creds.instanceUrl}/pictrs/image/${file}` : undefined);
    if (!url)
      throw new TransientProviderError(
        `Lemmy accepted the image but returned no file: ${lemmyError(res.data)}`,
        res.status,
      );
    await input.saveCheckpoint({ ...(input.checkpoint ?? {}), [IMAGE_CHECKPOINT]: url });
    return url;
  }
}

/** The Lemmy plugin, registered in provider.list.ts. */
export const lemmyPlugin = defineProvider({
  id: 'lemmy',
  apiVersion: {
    pinned: 'v3 and v4 (/api/v3 on Lemmy 0.19, /api/v4 on 1.x, detected per instance)',
    source:
      'Lemmy API (LemmyNet/lemmy-js-client 0.19 and 1.0.0-beta.2 types, join-lemmy.org/api), checked 2026-11-29; versions are path prefixes, no retirement dates',
  },
  displayName: 'Lemmy',
  connectKind: 'credentials',
  credentials: LemmyCredentialsDto,
  defaultLimits: LEMMY_LIMITS,
  capabilities: { altText: true, metrics: ['likes', 'replies'] },
  optionsSchema: LEMMY_OPTIONS_SCHEMA,
  create: ({ http }) => new LemmyProvider(http),
});
