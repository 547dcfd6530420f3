import { OutboundHttp, SsrfBlockedError } from '../../common/http/outbound-http';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { multipartForm } from '../multipart-form.util';
import { comparableText } from '../plugin-helpers.util';
import { asArray, asId, asNonEmptyString, asNumber, asObject, asString, at } from '../provider-json.util';
import { ContentRejectedError, InvalidCredentialsError, TransientProviderError } from '../provider.errors';
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
import { WORDPRESS, WordpressApi, wordpressErrorText } from './wordpress-api.client';
import { WordpressCredentialsDto, parseWordpressCredentials } from './wordpress.credentials';
import { WORDPRESS_LIMITS } from './wordpress.limits';
import { WORDPRESS_OPTIONS_SCHEMA, WordpressOptions } from './wordpress.options';

/** Checkpoint key: the site's media ids of the items this publication uploaded, by our media id. */
const MEDIA_CHECKPOINT = 'wordpressMedia';
/** How many of the user's latest posts (and comments) a retry reads to find what a lost answer created. */
const LOOKUP_COUNT = 20;

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The letters and digits of a text or of rendered HTML (tags and entities dropped), to compare the two. */
function lettersOf(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#?[a-z0-9]+;/gi, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .toLowerCase();
}

interface UploadedMedia {
  id: number;
  url: string;
  video: boolean;
  alt: string | null;
}

/**
 * WordPress adapter (REST API `wp/v2`, application passwords over HTTP Basic). A post is created with
 * POST /wp/v2/posts: title, content, status, categories, tags (names resolved to ids, created when
 * missing) and the first image as `featured_media`; the other images and videos are appended to the
 * content as image and video blocks. WordPress has no idempotency key: the uploaded media ids are
 * checkpointed, and a retry first reads the user's latest posts for one with the same content
 * (context=edit gives the raw content) before creating another. The first comment is a comment
 * (POST /wp/v2/comments), refused by WordPress where comments are closed.
 */
export class WordpressProvider implements SocialProvider {
  readonly id = 'wordpress' as const;

  constructor(private readonly http: OutboundHttp) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseWordpressCredentials(credentials);
    const api = new WordpressApi(this.http, creds);
    const host = new URL(creds.siteUrl).host;
    let me;
    try {
      me = await api.send({ method: 'GET', route: '/wp/v2/users/me?context=edit' });
    } catch (err) {
      if (err instanceof SsrfBlockedError)
        throw new InvalidCredentialsError(`The siteUrl is not allowed: ${err.message}`);
      const reason = err instanceof Error ? `: ${err.message}` : '';
      throw new InvalidCredentialsError(`The WordPress site ${host} could not be reached${reason}`);
    }
    if (me.status === 401 || me.status === 403) {
      throw new InvalidCredentialsError(
        `WordPress refused the username or application password: ${wordpressErrorText(me.data) || `HTTP ${me.status}`}`,
        me.status,
      );
    }
    if (me.status === 404) {
      throw new InvalidCredentialsError(
        `No WordPress REST API at ${creds.siteUrl}/wp-json (check siteUrl; the site needs pretty permalinks)`,
        404,
      );
    }
    const user = asObject(me.data);
    const userId = asId(user?.id);
    if (me.status !== 200 || !user || !userId) {
      throw new InvalidCredentialsError(
        `The server at ${host} did not answer like a WordPress site (HTTP ${me.status})`,
      );
    }
    const capabilities = asObject(user.capabilities);
    if (capabilities && capabilities.publish_posts !== true) {
      throw new InvalidCredentialsError(
        `The WordPress user ${creds.username} may not publish posts (role Author or above is needed)`,
      );
    }
    const site = await api.send({ method: 'GET', route: '/' }).catch(() => undefined);
    const siteName = site?.status === 200 ? asNonEmptyString(asObject(site.data)?.name) : undefined;
    const userName = asNonEmptyString(user.name) ?? creds.username;
    return {
      externalId: `${host}${new URL(creds.siteUrl).pathname.replace(/\/$/, '')}:${userId}`,
      name: siteName ? `${siteName} (${userName})` : userName,
      handle: `${asNonEmptyString(user.slug) ?? creds.username}@${host}`,
      avatarUrl: asNonEmptyString(at(user, 'avatar_urls', '96')) ?? null,
      profileUrl: asNonEmptyString(user.link) ?? null,
      limits: { ...WORDPRESS_LIMITS, supportedMimeTypes: [...WORDPRESS_LIMITS.supportedMimeTypes] },
      credentials: { ...creds, userId },
    };
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(WORDPRESS, post.content, post.media, limits);
    const length = [...post.content].length;
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; WordPress takes ${limits.maxCharacters} in a comment, the limit used here`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput<WordpressOptions>): Promise<PublishResult> {
    const creds = parseWordpressCredentials(input.credentials);
    const api = new WordpressApi(this.http, creds);
    const userId = asId(input.credentials.userId);
    if ((input.attempt ?? 1) > 1 && userId) {
      const found = await this.findPost(api, userId, input.content);
      if (found) return found;
    }
    const uploaded = await this.uploadAll(api, input);
    const options = input.options ?? {};
    const featured = uploaded.find((m) => !m.video);
    const blocks = uploaded
      .filter((m) => m !== featured)
      .map((m) =>
        m.video
          ? `<!-- wp:video {"id":${m.id}} -->\n<figure class="wp-block-video"><video controls src="${escapeAttribute(m.url)}"></video></figure>\n<!-- /wp:video -->`
          : `<!-- wp:image {"id":${m.id}} -->\n<figure class="wp-block-image"><img src="${escapeAttribute(m.url)}" alt="${escapeAttribute(m.alt ?? '')}" class="wp-image-${m.id}"/></figure>\n<!-- /wp:image -->`,
      );
    const tags = options.tags ? await this.tagIds(api, options.tags) : undefined;
    const res = await api.call(
      {
        method: 'POST',
        route: '/wp/v2/posts',
        json: {
          content: [input.content, ...blocks].filter((part) => part !== '').join('\n\n'),
          status: options.status ?? 'publish',
          ...(options.title ? { title: options.title } : {}),
          ...(options.excerpt ? { excerpt: options.excerpt } : {}),
          ...(options.categories ? { categories: options.categories } : {}),
          ...(tags ? { tags } : {}),
          ...(featured ? { featured_media: featured.id } : {}),
        },
      },
      'content',
    );
    return this.postRef(res.data, creds.siteUrl, res.status);
  }

  async comment(input: CommentInput): Promise<PublishResult> {
    const creds = parseWordpressCredentials(input.credentials);
    const api = new WordpressApi(this.http, creds);
    const postId = input.post.platformPostId;
    const userId = asId(input.credentials.userId);
    if (input.attempt > 1 && userId) {
      const found = await this.findComment(api, postId, userId, input.content);
      if (found) return this.commentRef(found.comment, creds.siteUrl, found.status);
    }
    const res = await api.call(
      { method: 'POST', route: '/wp/v2/comments', json: { post: Number(postId), content: input.content } },
      'content',
    );
    return this.commentRef(res.data, creds.siteUrl, res.status);
  }

  /** Comments are the one figure WordPress core keeps of a post: `X-WP-Total` of its approved comments. */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new WordpressApi(this.http, parseWordpressCredentials(credentials));
    const res = await api.call(
      { method: 'GET', route: `/wp/v2/comments?post=${encodeURIComponent(ref.platformPostId)}&per_page=1` },
      'content',
    );
    const header = res.headers['x-wp-total'];
    const total = asNumber(Number(Array.isArray(header) ? header[0] : header));
    const replies = total !== undefined && Number.isFinite(total) ? total : null;
    return {
      metrics: { likes: null, reposts: null, replies, quotes: null, impressions: null, raw: { comments: replies } },
    };
  }

  private postRef(data: unknown, siteUrl: string, status: number): PublishResult {
    const post = asObject(data);
    const id = asId(post?.id);
    if (!id) throw new TransientProviderError('WordPress accepted the post but returned no id', status);
    return { platformPostId: id, url: asNonEmptyString(post?.link) ?? `${siteUrl}/?p=${id}` };
  }

  private commentRef(data: unknown, siteUrl: string, status: number): PublishResult {
    const comment = asObject(data);
    const id = asId(comment?.id);
    if (!id) throw new TransientProviderError('WordPress accepted the comment but returned no id', status);
    return {
      platformPostId: id,
      url: asNonEmptyString(comment?.link) ?? `${siteUrl}/?p=${asId(comment?.post) ?? ''}#comment-${id}`,
    };
  }

  /** The user's latest post (any status this service sets) with this content, when a lost answer created it. */
  private async findPost(api: WordpressApi, userId: string, content: string): Promise<PublishResult | null> {
    const res = await api.call(
      {
        method: 'GET',
        route: `/wp/v2/posts?author=${encodeURIComponent(userId)}&status=publish,draft&per_page=${LOOKUP_COUNT}&context=edit&orderby=date&order=desc`,
      },
      'content',
    );
    const wanted = comparableText(content);
    for (const entry of asArray(res.data) ?? []) {
      const raw = comparableText(asString(at(entry, 'content', 'raw')) ?? '');
      // Our content comes first; media blocks may follow it.
      if (raw === wanted || raw.startsWith(`${wanted} <!-- wp:`)) return this.postRef(entry, '', res.status);
    }
    return null;
  }

  /**
   * The user's comment on the post with this content, when a lost answer created it. The raw content
   * needs `context=edit`, which the comments controller grants only with `moderate_comments` (Editor
   * and above: rest_forbidden_context otherwise); an Author's lookup compares the rendered content
   * instead, by its letters and digits (WordPress's filters add markup and curl quotes and dashes).
   */
  private async findComment(
    api: WordpressApi,
    postId: string,
    userId: string,
    content: string,
  ): Promise<{ comment: unknown; status: number } | null> {
    const route = `/wp/v2/comments?post=${encodeURIComponent(postId)}&author=${encodeURIComponent(userId)}&per_page=${LOOKUP_COUNT}`;
    try {
      const mine = await api.call({ method: 'GET', route: `${route}&context=edit` }, 'content');
      const wanted = comparableText(content);
      const comment = (asArray(mine.data) ?? []).find(
        (c) => comparableText(asString(at(c, 'content', 'raw')) ?? '') === wanted,
      );
      return comment ? { comment, status: mine.status } : null;
    } catch (err) {
      if (!(err instanceof ContentRejectedError && err.status === 403)) throw err;
    }
    const mine = await api.call({ method: 'GET', route }, 'content');
    const wanted = lettersOf(content);
    const comment = (asArray(mine.data) ?? []).find(
      (c) => lettersOf(asString(at(c, 'content', 'rendered')) ?? '') === wanted,
    );
    return comment ? { comment, status: mine.status } : null;
  }

  /** Uploads every media item once per publication (the site's ids are checkpointed). */
  private async uploadAll(api: WordpressApi, input: PublishInput): Promise<UploadedMedia[]> {
    const saved = { ...(asObject(input.checkpoint?.[MEDIA_CHECKPOINT]) ?? {}) } as Record<string, UploadedMedia>;
    const out: UploadedMedia[] = [];
    for (const media of input.media) {
      let item = saved[media.id];
      if (!item) {
        item = await this.upload(api, media);
        saved[media.id] = item;
        await input.saveCheckpoint({ ...(input.checkpoint ?? {}), [MEDIA_CHECKPOINT]: saved });
      }
      out.push(item);
    }
    return out;
  }

  /** POST /wp/v2/media: the file as multipart `file`, with its alt text (`alt_text`). */
  private async upload(api: WordpressApi, media: PublishMedia): Promise<UploadedMedia> {
    const form = multipartForm([
      ...(media.altText ? [{ name: 'alt_text', value: media.altText }] : []),
      { name: 'file', media },
    ]);
    const res = await api.call(
      {
        method: 'POST',
        route: '/wp/v2/media',
        body: form.body,
        contentType: form.contentType,
        contentLength: form.contentLength,
        timeoutMs: 120_000,
      },
      'media',
    );
    const item = asObject(res.data);
    const id = asNumber(item?.id);
    const url = asNonEmptyString(item?.source_url);
    if (id === undefined || !url)
      throw new TransientProviderError('WordPress accepted the media but returned no id', res.status);
    return { id, url, video: isVideoMedia(media), alt: media.altText };
  }

  /** Tag ids of the names: an existing tag of the same name (case-insensitive), or a new one. */
  private async tagIds(api: WordpressApi, names: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const name of names) {
      const found = await api.call(
        { method: 'GET', route: `/wp/v2/tags?search=${encodeURIComponent(name)}&per_page=100` },
        'content',
      );
      const match = (asArray(found.data) ?? []).find(
        (t) => (asString(at(t, 'name')) ?? '').toLowerCase() === name.toLowerCase(),
      );
      const existing = asNumber(at(match, 'id'));
      if (existing !== undefined) {
        ids.push(existing);
        continue;
      }
      try {
        const created = await api.call({ method: 'POST', route: '/wp/v2/tags', json: { name } }, 'content');
        const id = asNumber(at(created.data, 'id'));
        if (id === undefined) throw new TransientProviderError('WordPress created the tag but returned no id');
        ids.push(id);
      } catch (err) {
        if (err instanceof ContentRejectedError && err.status === 403) {
          throw new ContentRejectedError(
            `The tag "${name}" does not exist on the site and this WordPress user may not create tags (Editor role needed)`,
            403,
          );
        }
        throw err;
      }
    }
    return ids;
  }
}

/** The WordPress plugin, registered in provider.list.ts. */
export const wordpressPlugin = defineProvider({
  id: 'wordpress',
  apiVersion: {
    pinned: 'wp/v2',
    source:
      'WordPress REST API Handbook (developer.wordpress.org/rest-api/reference), checked 2026-11-29; the namespace wp/v2 has been stable since WordPress 4.7 and has no retirement date',
  },
  displayName: 'WordPress',
  connectKind: 'credentials',
  credentials: WordpressCredentialsDto,
  defaultLimits: WORDPRESS_LIMITS,
  capabilities: { altText: true, metrics: ['replies'] },
  optionsSchema: WORDPRESS_OPTIONS_SCHEMA,
  create: ({ http }) => new WordpressProvider(http),
});
