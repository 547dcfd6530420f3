import type { OutboundHttp } from '../../common/http/outbound-http';
import { altTextProblems, commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { multipartForm } from '../multipart-form.util';
import { LOOKUP_SLACK_MS, comparableText, copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { ApiResponse, BearerRequest, CallKind, mapHttpFailure, mapThrown, sendWithBearer } from '../provider-http.util';
import { asArray, asNumber, asObject, asString, at } from '../provider-json.util';
import { oauthAppSettings } from '../provider-settings';
import { InvalidCredentialsError, ProviderError, TransientProviderError } from '../provider.errors';
import type {
  ChannelLimits,
  ConnectedAccount,
  Metrics,
  MetricsResult,
  PostDraft,
  Problem,
  PublishedRef,
  PublishInput,
  PublishMedia,
  PublishResult,
  SocialProvider,
} from '../social-provider.interface';
import { videoRequirements, videoToSend } from '../video-publish.util';
import {
  TUMBLR_BLOG_NAME,
  TumblrCredentials,
  TumblrCredentialsDto,
  parseTumblrCredentials,
} from './tumblr.credentials';
import { TUMBLR_LIMITS, TUMBLR_MAX_ALT_TEXT, TUMBLR_MAX_TEXT_BLOCK, TUMBLR_VIDEO_LIMITS } from './tumblr.limits';
import { TUMBLR_OPTIONS_SCHEMA, type TumblrOptions } from './tumblr.options';

export const TUMBLR_NAME = 'Tumblr';

/** What Tumblr takes as a native video: H.264/AAC MP4, index first (converted once when not). */
const TUMBLR_VIDEO = videoRequirements(TUMBLR_NAME, TUMBLR_VIDEO_LIMITS, {
  mimeTypes: ['video/mp4'],
  faststart: true,
});

/** Posts of the blog read when looking for what a lost answer created (Tumblr lists 20 at most). */
const LOOKUP_COUNT = 20;

/** Tumblr's error text: the `errors` titles (with their subcodes), else `meta.msg`. */
export function tumblrErrorText(data: unknown): string {
  const errors = (asArray(asObject(data)?.errors) ?? []).flatMap((e) => {
    const title = asString(asObject(e)?.title) ?? asString(asObject(e)?.detail);
    const code = asNumber(asObject(e)?.code);
    return title ? [code !== undefined ? `${title} (${code})` : title] : [];
  });
  return errors.length > 0 ? errors.join('; ') : (asString(at(data, 'meta', 'msg')) ?? '');
}

/** Maps a non-2xx answer: 401 revoked, 429 and 5xx retried, other 4xx refused (403.8023: the daily post limit). */
export function mapTumblrFailure(res: ApiResponse, kind: CallKind): ProviderError {
  return mapHttpFailure(TUMBLR_NAME, res.status, res.headers, tumblrErrorText(res.data), kind);
}

/** The paragraphs of a post's text as NPF text blocks (empty lines dropped: Tumblr trims them). */
export function textBlocks(content: string): Array<{ type: 'text'; text: string }> {
  return content
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((text) => ({ type: 'text', text }));
}

/** The text of an NPF post's content blocks, one paragraph a line. */
function npfText(content: unknown): string {
  return (asArray(content) ?? [])
    .flatMap((b) => (asString(asObject(b)?.type) === 'text' ? [asString(asObject(b)?.text) ?? ''] : []))
    .join('\n');
}

interface Blog {
  name: string;
  title: string;
  url: string | null;
  uuid: string | null;
  primary: boolean;
}

/**
 * Tumblr (OAuth 2.0): one channel is one blog of the account, chosen at connection. Posts go in the Neue
 * Post Format: the text as text blocks, images as image blocks (with alt text) and a video as a video
 * block, the files in the same multipart request under their identifiers; tags and state from the
 * target's options (docs/adr/0054).
 */
export class TumblrProvider implements SocialProvider {
  readonly id = 'tumblr';

  constructor(private readonly http: OutboundHttp) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const blogs = await this.read(credentials);
    const wanted = parseTumblrCredentials(credentials).blog;
    const blog = wanted ? blogs.find((b) => b.name === wanted) : (blogs.find((b) => b.primary) ?? blogs[0]);
    if (!blog) {
      throw new InvalidCredentialsError(
        wanted ? `The Tumblr blog ${wanted} is not among the account's blogs` : 'The Tumblr account has no blog',
      );
    }
    return this.account(credentials, blog);
  }

  /** Every blog the account may post to, the primary one first, for the caller to choose from. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const blogs = await this.read(credentials);
    if (blogs.length === 0) throw new InvalidCredentialsError('The Tumblr account has no blog');
    const ordered = [...blogs.filter((b) => b.primary), ...blogs.filter((b) => !b.primary)];
    return ordered.map((blog) => this.account(credentials, blog));
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(TUMBLR_NAME, post.content, post.media, limits, { convertsVideo: true });
    const length = [...post.content].length;
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text has ${length} characters; this service sends at most ${limits.maxCharacters} to Tumblr`,
      });
    }
    const longest = Math.max(0, ...textBlocks(post.content).map((b) => [...b.text].length));
    if (longest > TUMBLR_MAX_TEXT_BLOCK) {
      problems.push({
        field: 'content',
        message: `A paragraph has ${longest} characters; a Tumblr text block allows ${TUMBLR_MAX_TEXT_BLOCK}: split it`,
      });
    }
    problems.push(...altTextProblems('Tumblr', post.media, TUMBLR_MAX_ALT_TEXT));
    return problems;
  }

  /**
   * Creates the post on the channel's blog. Tumblr takes no idempotency key: a retry first looks for a
   * post with this text created on the blog (among its published, queued or draft posts, by the state
   * asked) since the publication started.
   */
  async publish(input: PublishInput<TumblrOptions>): Promise<PublishResult> {
    const creds = parseTumblrCredentials(input.credentials);
    if (!creds.blog) throw new InvalidCredentialsError('The Tumblr channel has no blog: connect it again');
    const options = input.options ?? {};
    const state = options.state ?? 'published';
    try {
      if ((input.attempt ?? 1) > 1 || input.checkpoint?.sent) {
        const found = await this.findRecent(creds, state, input);
        if (found) return found;
      }
      const video = await videoToSend(input.media, TUMBLR_VIDEO);
      const files: Array<{ identifier: string; media: PublishMedia }> = [];
      const content: unknown[] = textBlocks(input.content);
      for (const [i, item] of input.media.entries()) {
        const identifier = `media-${i}`;
        if (isVideoMedia(item)) {
          const media = video ?? item;
          files.push({ identifier, media });
          content.push({ type: 'video', media: mediaObject(media, identifier) });
        } else {
          files.push({ identifier, media: item });
          content.push({
            type: 'image',
            media: [mediaObject(item, identifier)],
            ...(item.altText ? { alt_text: item.altText } : {}),
          });
        }
      }
      const body: Record<string, unknown> = { content, state };
      if (options.tags?.length) body.tags = options.tags.join(',');
      if (options.sourceUrl) body.source_url = options.sourceUrl;
      const path = `/v2/blog/${encodeURIComponent(creds.blog)}/posts`;
      await input.saveCheckpoint({ sent: true });
      let res: ApiResponse;
      if (files.length === 0) {
        res = await this.send(creds, { method: 'POST', path, json: body });
      } else {
        const form = multipartForm([
          { name: 'json', value: JSON.stringify(body) },
          ...files.map(({ identifier, media }) => ({ name: identifier, media })),
        ]);
        res = await this.send(creds, {
          method: 'POST',
          path,
          body: form.body,
          contentType: form.contentType,
          headers: { 'content-length': String(form.contentLength) },
          timeoutMs: 600_000,
        });
      }
      if (res.status < 200 || res.status >= 300)
        throw mapTumblrFailure(res, files.length > 0 && res.status === 400 ? 'media' : 'content');
      const id = asString(at(res.data, 'response', 'id')) ?? asString(at(res.data, 'response', 'id_string'));
      if (!id) throw new TransientProviderError('Tumblr accepted the post but returned no id', res.status);
      return { platformPostId: id, url: postUrl(creds.blog, id) };
    } catch (err) {
      throw mapThrown(TUMBLR_NAME, err);
    }
  }

  /**
   * The post's notes (`/notes`, mode `conversation`): likes, reblogs, and the replies of its first
   * page; `raw.note_count` the total. A post Tumblr does not show (queued, draft) has no notes: nulls.
   */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = parseTumblrCredentials(credentials);
    const none: Metrics = { likes: null, reposts: null, replies: null, quotes: null, impressions: null, raw: {} };
    if (!creds.blog) return { metrics: none };
    const query = new URLSearchParams({ id: ref.platformPostId, mode: 'conversation' });
    const res = await this.send(creds, {
      method: 'GET',
      path: `/v2/blog/${encodeURIComponent(creds.blog)}/notes?${query.toString()}`,
    });
    if (res.status === 404) return { metrics: none };
    if (res.status < 200 || res.status >= 300) throw mapTumblrFailure(res, 'content');
    const r = asObject(asObject(res.data)?.response) ?? {};
    const replies = (asArray(r.notes) ?? []).filter((n) => asString(asObject(n)?.type) === 'reply').length;
    const noteCount = asNumber(r.total_notes) ?? null;
    return {
      metrics: {
        likes: asNumber(r.total_likes) ?? null,
        reposts: asNumber(r.total_reblogs) ?? null,
        replies,
        quotes: null,
        impressions: null,
        raw: { note_count: noteCount, total_likes: r.total_likes ?? null, total_reblogs: r.total_reblogs ?? null },
      },
    };
  }

  private send(creds: TumblrCredentials, req: BearerRequest): Promise<ApiResponse> {
    return sendWithBearer(this.http, TUMBLR_NAME, creds.apiBaseUrl, creds.accessToken, req);
  }

  /** The blog's post with this text made since the publication started, among the posts of `state`. */
  private async findRecent(
    creds: TumblrCredentials,
    state: string,
    input: PublishInput,
  ): Promise<PublishResult | null> {
    const blog = encodeURIComponent(creds.blog!);
    const path =
      state === 'queue'
        ? `/v2/blog/${blog}/posts/queue?limit=${LOOKUP_COUNT}&filter=text`
        : state === 'draft'
          ? `/v2/blog/${blog}/posts/draft?filter=text`
          : `/v2/blog/${blog}/posts?npf=true&limit=${LOOKUP_COUNT}`;
    const res = await this.send(creds, { method: 'GET', path });
    if (res.status < 200 || res.status >= 300) throw mapTumblrFailure(res, 'content');
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const wanted = comparableText(input.content);
    for (const item of asArray(at(res.data, 'response', 'posts')) ?? []) {
      const post = asObject(item);
      const id = asString(post?.id_string);
      const at_ = (asNumber(post?.timestamp) ?? 0) * 1000;
      const text = post?.content !== undefined ? npfText(post.content) : (asString(post?.body) ?? '');
      if (id && at_ >= since && comparableText(text) === wanted)
        return { platformPostId: id, url: postUrl(creds.blog!, id) };
    }
    return null;
  }

  /** The blogs the account may post to (`/v2/user/info`). */
  private async read(credentials: unknown): Promise<Blog[]> {
    const creds = parseTumblrCredentials(credentials);
    let res: ApiResponse;
    try {
      res = await this.send(creds, { method: 'GET', path: '/v2/user/info' });
    } catch (err) {
      throw new InvalidCredentialsError(`Tumblr could not be reached: ${(err as Error).message}`);
    }
    if (res.status === 429 || res.status >= 500) throw mapTumblrFailure(res, 'content');
    if (res.status !== 200) {
      throw new InvalidCredentialsError(
        `Tumblr refused the access token: ${tumblrErrorText(res.data) || `HTTP ${res.status}`}`,
      );
    }
    const user = asObject(at(res.data, 'response', 'user')) ?? {};
    const blogs = (asArray(user.blogs) ?? []).flatMap((b): Blog[] => {
      const blog = asObject(b);
      const name = asString(blog?.name);
      if (!blog || !name || !TUMBLR_BLOG_NAME.test(name)) return [];
      return [
        {
          name,
          title: asString(blog.title) || name,
          url: asString(blog.url) ?? null,
          uuid: asString(blog.uuid) ?? null,
          primary: blog.primary === true,
        },
      ];
    });
    return blogs;
  }

  private account(raw: unknown, blog: Blog): ConnectedAccount {
    const creds = parseTumblrCredentials(raw);
    const stored = asObject(raw) ?? {};
    return {
      externalId: blog.uuid ?? blog.name,
      kind: blog.primary ? 'personal' : 'organization',
      name: blog.title,
      handle: blog.name,
      avatarUrl: `${creds.apiBaseUrl}/v2/blog/${blog.name}/avatar/128`,
      profileUrl: blog.url ?? `https://www.tumblr.com/${blog.name}`,
      limits: copyLimits(TUMBLR_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        blog: blog.name,
      },
    };
  }
}

/** An NPF media object naming the multipart part that carries the file. */
function mediaObject(media: PublishMedia, identifier: string): Record<string, unknown> {
  return {
    type: media.mimeType,
    identifier,
    ...(media.width ? { width: media.width } : {}),
    ...(media.height ? { height: media.height } : {}),
  };
}

const postUrl = (blog: string, id: string) => `https://www.tumblr.com/${blog}/${id}`;

/** Scopes: the account and its blogs (`basic`), posting (`write`), a refresh token (`offline_access`). */
const TUMBLR_SCOPES = ['basic', 'write', 'offline_access'];

/** The Tumblr plugin: OAuth 2.0 authorization code, one channel per chosen blog; registered in provider.list.ts. */
export const tumblrPlugin = defineProvider({
  id: 'tumblr',
  apiVersion: {
    pinned: 'v2',
    source:
      'Tumblr API v2 (tumblr/docs api.md, commit 708be10 of 2024-10-18, checked 2026-11-29); no retirement date stated',
  },
  displayName: 'Tumblr',
  connectKind: 'oauth',
  credentials: TumblrCredentialsDto,
  defaultLimits: TUMBLR_LIMITS,
  capabilities: { altText: true },
  optionsSchema: TUMBLR_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: { auth: 'https://www.tumblr.com', api: 'https://api.tumblr.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth2/authorize`,
    tokenUrl: (hosts) => `${hosts.api}/v2/oauth2/token`,
    scopes: TUMBLR_SCOPES,
    // Tumblr's token endpoint takes client_id and client_secret as form fields.
    clientAuthentication: 'body',
  },
  settings: oauthAppSettings('TUMBLR', {
    clientId:
      'Tumblr app, OAuth 2 (consumer key and secret; redirect URL {PUBLIC_BASE_URL}/api/oauth/tumblr/callback); Tumblr is listed disabled without both',
    authBaseUrl: 'override of https://www.tumblr.com (consent page)',
    apiBaseUrl: 'override of https://api.tumblr.com (API v2 and token endpoint)',
  }),
  create: ({ http }) => new TumblrProvider(http),
});
