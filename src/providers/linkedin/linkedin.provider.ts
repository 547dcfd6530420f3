import { Readable } from 'node:stream';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { MediaSizeMismatchError, exactSizeChunks, openExactSize } from '../media-stream.util';
import { copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  MediaRejectedError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import { sentVideoId, videoRequirements, videoToSend } from '../video-publish.util';
import type {
  CommentInput,
  AccountKind,
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
import {
  LINKEDIN_NAME,
  LinkedInApi,
  duplicateRefusal,
  linkedInErrorText,
  mapLinkedInFailure,
} from './linkedin-api.client';
import { comparableText, escapeLittleText, linkedInCommentaryLength, unescapeLittleText } from './linkedin-text';
import { LinkedInCredentials, LinkedInCredentialsDto, parseLinkedInCredentials } from './linkedin.credentials';
import {
  LINKEDIN_LIMITS,
  LINKEDIN_VIDEO_LIMITS,
  LINKEDIN_MAX_IMAGE_PIXELS,
  LINKEDIN_MAX_ORGANIZATIONS,
  LINKEDIN_POSTING_ROLES,
} from './linkedin.limits';
import { linkedInVersionSunset } from '../api-version';
import { appCredentials, revokeAt, storedToken, withRevocation } from '../token-revocation.util';

/** Checkpoint key of the URN of a video LinkedIn received (parts sent, upload finalized): never uploaded twice. */
const VIDEO_CHECKPOINT = 'linkedInVideoUrn';
/** How often a video LinkedIn is processing is polled by default (LinkedIn gives no hint). */
const VIDEO_POLL_MS = 2_000;
/** What LinkedIn takes as a file: H.264/AAC MP4. */
const LINKEDIN_VIDEO = videoRequirements(LINKEDIN_NAME, LINKEDIN_VIDEO_LIMITS, {
  mimeTypes: ['video/mp4'],
  faststart: true,
});

/** One part of a multi-part video upload, as initializeUpload describes it (byte offsets, inclusive). */
export interface UploadPart {
  uploadUrl: string;
  firstByte: number;
  lastByte: number;
}

/**
 * The bytes of each part in order, read once from the media's stream (one part in memory at a
 * time, never the whole file). Fails when the bytes do not match the declared size.
 */
export async function* partBytes(media: PublishMedia, parts: UploadPart[]): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  for await (const chunk of exactSizeChunks(media)) {
    let rest = chunk;
    while (rest.length > 0 && index < parts.length) {
      const want = parts[index].lastByte - parts[index].firstByte + 1 - pendingBytes;
      const take = rest.subarray(0, want);
      pending.push(take);
      pendingBytes += take.length;
      rest = rest.subarray(take.length);
      if (pendingBytes === parts[index].lastByte - parts[index].firstByte + 1) {
        yield Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
        index++;
      }
    }
  }
  if (index !== parts.length) throw new MediaSizeMismatchError(media.id, media.size, parts[index]?.firstByte ?? 0);
}

/** How far before the publication's start the lookup of a retry reaches. */
const LOOKUP_SLACK_MS = 60_000;
/** Posts of the author read by the lookup (most recent first). */
const LOOKUP_COUNT = 20;
/** Scopes any of which lets the member list the organizations they administer. */
const ORGANIZATION_SCOPES = [
  'rw_organization_admin',
  'r_organization_admin',
  'w_organization_social',
  'r_organization_social',
];
/** The member post analytics read, mapped to our figures. */
const MEMBER_METRICS: Array<[string, keyof Omit<Metrics, 'raw'>]> = [
  ['IMPRESSION', 'impressions'],
  ['REACTION', 'likes'],
  ['COMMENT', 'replies'],
  ['RESHARE', 'reposts'],
];

/** What the lookup of a retry found, and whether LinkedIn let us read the author's posts at all. */
interface Lookup {
  found: PublishResult | null;
  permitted: boolean;
}

const isOrganization = (urn: string) => urn.startsWith('urn:li:organization:');
const urlOf = (urn: string) => `https://www.linkedin.com/feed/update/${urn}`;

/**
 * LinkedIn's versioned REST API (Posts, Images, organization access control and statistics) with a
 * member's OAuth 2.0 token. One authorization reaches the member and the organization pages they
 * administer: each becomes its own channel, publishing with its URN as the author.
 */
export class LinkedInProvider implements SocialProvider {
  readonly id = 'linkedin';

  constructor(
    private readonly http: OutboundHttp,
    /** LinkedIn-Version of REST calls (LINKEDIN_API_VERSION). */
    private readonly version: string,
    /** Pause before the next read of a video LinkedIn is processing (LINKEDIN_VIDEO_POLL_MS). */
    private readonly videoPollMs: number = VIDEO_POLL_MS,
  ) {}

  /** The member who authorized (OpenID Connect userinfo). */
  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseLinkedInCredentials(credentials);
    const api = new LinkedInApi(this.http, creds, this.version);
    let res;
    try {
      res = await api.send({ method: 'GET', path: '/v2/userinfo' });
    } catch (err) {
      throw new InvalidCredentialsError(`LinkedIn could not be reached: ${(err as Error).message}`);
    }
    if (res.status !== 200) {
      throw new InvalidCredentialsError(
        `LinkedIn refused the access token: ${linkedInErrorText(res.data) || `HTTP ${res.status}`}`,
      );
    }
    const user = asObject(res.data);
    const sub = asString(user?.sub);
    if (!user || !sub || !/^[A-Za-z0-9_-]{1,64}$/.test(sub)) {
      throw new InvalidCredentialsError('LinkedIn did not return the member');
    }
    const fullName = [asString(user.given_name), asString(user.family_name)].filter(Boolean).join(' ');
    const name = asString(user.name) || fullName || sub;
    return this.account(credentials, {
      externalId: `urn:li:person:${sub}`,
      kind: 'personal',
      name,
      handle: name,
      avatarUrl: asString(user.picture) ?? null,
      profileUrl: null,
    });
  }

  /** The member, then the organization pages they may post as (approved administrator roles). */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const member = await this.connect(credentials);
    const creds = parseLinkedInCredentials(credentials);
    if (creds.scopes && !creds.scopes.some((s) => ORGANIZATION_SCOPES.includes(s))) return [member];
    const api = new LinkedInApi(this.http, creds, this.version);
    const organizations: ConnectedAccount[] = [];
    for (const id of await this.administeredOrganizations(api)) {
      organizations.push(await this.organization(api, id, credentials));
    }
    return [member, ...organizations];
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return linkedInCommentaryLength(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(LINKEDIN_NAME, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message:
          `The text counts ${length} characters as sent to LinkedIn (the reserved characters \\ | { } @ [ ] ( ) < > * _ ~ ` +
          `and # outside hashtags are sent escaped, 2 each); LinkedIn allows ${limits.maxCharacters}`,
      });
    }
    for (const item of post.media) {
      if (isVideoMedia(item)) continue;
      if (item.width && item.height && item.width * item.height > LINKEDIN_MAX_IMAGE_PIXELS) {
        problems.push({
          field: 'mediaIds',
          message: `Media ${item.id} has ${item.width * item.height} pixels; LinkedIn accepts at most ${LINKEDIN_MAX_IMAGE_PIXELS}`,
        });
      }
    }
    return problems;
  }

  /**
   * LinkedIn has no idempotency key. A retry (attempt > 1) first looks for the post among the
   * author's recent posts; LinkedIn's DUPLICATE_POST refusal on a retry triggers the same lookup,
   * and when LinkedIn does not let us read the author's posts, the URN the refusal names is taken
   * as ours. See docs/adr/0017 and docs/adr/0018.
   */
  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseLinkedInCredentials(input.credentials);
    const author = creds.authorUrn;
    if (!author) throw new CredentialsRevokedError('The LinkedIn channel has no author URN: connect it again');
    const api = new LinkedInApi(this.http, creds, this.version);
    const retry = (input.attempt ?? 1) > 1;
    if (retry) {
      const { found } = await this.findRecent(api, author, input);
      if (found) return found;
    }
    const video = await this.sentVideo(api, author, input);
    const images: Array<{ id: string; altText?: string }> = [];
    if (!video) {
      for (const media of input.media) {
        const id = await this.upload(api, author, media);
        images.push(media.altText ? { id, altText: media.altText } : { id });
      }
    }
    const body: Record<string, unknown> = {
      author,
      commentary: escapeLittleText(input.content),
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    };
    if (images.length === 1) body.content = { media: images[0] };
    if (images.length > 1) body.content = { multiImage: { images } };
    if (video) body.content = { media: { id: video } };
    const res = await api.send({ method: 'POST', path: '/rest/posts', json: body });
    if (res.status >= 200 && res.status < 300) {
      const header = res.headers['x-restli-id'];
      const urn = (Array.isArray(header) ? header[0] : header) ?? asString(asObject(res.data)?.id);
      if (!urn) throw new TransientProviderError('LinkedIn accepted the post but returned no id', res.status);
      return { platformPostId: urn, url: urlOf(urn) };
    }
    const duplicate = duplicateRefusal(res.status, res.data);
    if (duplicate.duplicate && retry) {
      const lookup = await this.findRecent(api, author, input);
      if (lookup.found) return lookup.found;
      // Without read access to the author's posts, the post LinkedIn names is the best evidence.
      if (!lookup.permitted && duplicate.urn) return { platformPostId: duplicate.urn, url: urlOf(duplicate.urn) };
    }
    if (duplicate.duplicate) {
      throw new ContentRejectedError(
        `LinkedIn refused the post as a duplicate of a recent one${duplicate.urn ? ` (${duplicate.urn})` : ''}`,
        res.status,
      );
    }
    throw mapLinkedInFailure(res, 'content', this.version);
  }

  /**
   * A first comment: `POST /rest/socialActions/{urn}/comments` with the channel's author as `actor`.
   * LinkedIn takes no idempotency key: a retry first looks among the post's comments for the
   * author's own with this text. The comment has no page of its own: its URL is the post's.
   */
  async comment(input: CommentInput): Promise<PublishResult> {
    const creds = parseLinkedInCredentials(input.credentials);
    const actor = creds.authorUrn;
    if (!actor) throw new CredentialsRevokedError('The LinkedIn channel has no author URN: connect it again');
    const api = new LinkedInApi(this.http, creds, this.version);
    const object = input.post.platformPostId;
    const path = `/rest/socialActions/${encodeURIComponent(object)}/comments`;
    const url = input.post.url;
    const urnOf = (c: Record<string, unknown> | undefined) =>
      asString(c?.$URN) ?? (asString(c?.id) ? `urn:li:comment:(${object},${asString(c?.id)})` : undefined);
    if (input.attempt > 1) {
      const res = await api.call({ method: 'GET', path }, 'content');
      for (const item of asArray(asObject(res.data)?.elements) ?? []) {
        const c = asObject(item);
        const urn = urnOf(c);
        if (urn && asString(c?.actor) === actor && asString(asObject(c?.message)?.text) === input.content) {
          return { platformPostId: urn, url };
        }
      }
    }
    const res = await api.call(
      { method: 'POST', path, json: { actor, object, message: { text: input.content } } },
      'content',
    );
    const urn = urnOf(asObject(res.data));
    if (!urn) throw new TransientProviderError('LinkedIn accepted the comment but returned no id', res.status);
    return { platformPostId: urn, url };
  }

  /**
   * Organization posts: lifetime organic share statistics (rw_organization_admin). Member posts:
   * member post analytics, one call per figure (r_member_postAnalytics).
   */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = parseLinkedInCredentials(credentials);
    const api = new LinkedInApi(this.http, creds, this.version);
    const urn = ref.platformPostId;
    const ugc = urn.startsWith('urn:li:ugcPost:');
    if (creds.authorUrn && isOrganization(creds.authorUrn)) {
      const res = await this.metricsCall(
        api,
        `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(creds.authorUrn)}` +
          `&${ugc ? 'ugcPosts' : 'shares'}=List(${encodeURIComponent(urn)})`,
      );
      const first = asObject(asArray(asObject(res.data)?.elements)?.[0]);
      const stats = asObject(first?.totalShareStatistics) ?? {};
      const n = (k: string): number | null => asNumber(stats[k]) ?? null;
      return {
        metrics: {
          likes: n('likeCount'),
          reposts: n('shareCount'),
          replies: n('commentCount'),
          quotes: null,
          impressions: n('impressionCount'),
          raw: { ...stats },
        },
      };
    }
    const metrics: Metrics = { likes: null, reposts: null, replies: null, quotes: null, impressions: null, raw: {} };
    for (const [queryType, figure] of MEMBER_METRICS) {
      const res = await this.metricsCall(
        api,
        `/rest/memberCreatorPostAnalytics?q=entity&entity=(${ugc ? 'ugc' : 'share'}:${encodeURIComponent(urn)})` +
          `&queryType=${queryType}&aggregation=TOTAL`,
      );
      const elements = asArray(asObject(res.data)?.elements) ?? [];
      const counts = elements.map((e) => asNumber(asObject(e)?.count)).filter((c): c is number => c !== undefined);
      metrics[figure] = counts.length ? counts.reduce((a, b) => a + b, 0) : null;
      metrics.raw[queryType] = metrics[figure];
    }
    return { metrics };
  }

  private async metricsCall(api: LinkedInApi, path: string) {
    const res = await api.send({ method: 'GET', path });
    if (res.status === 403) {
      throw new ContentRejectedError(
        `LinkedIn does not share this post's figures with the granted scopes: ${linkedInErrorText(res.data) || 'HTTP 403'}`,
        403,
      );
    }
    if (res.status < 200 || res.status >= 300) throw mapLinkedInFailure(res, 'content', this.version);
    return res;
  }

  /** The author's post with this text created since the publication started, if any. */
  private async findRecent(api: LinkedInApi, author: string, input: PublishInput): Promise<Lookup> {
    const res = await api.send({
      method: 'GET',
      path: `/rest/posts?author=${encodeURIComponent(author)}&q=author&count=${LOOKUP_COUNT}&sortBy=LAST_MODIFIED`,
    });
    // Reading a member's posts needs r_member_social, which LinkedIn grants to few apps.
    if (res.status === 403) return { found: null, permitted: false };
    if (res.status < 200 || res.status >= 300) throw mapLinkedInFailure(res, 'content', this.version);
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.elements) ?? []) {
      const post = asObject(item);
      const id = asString(post?.id);
      const createdAt = asNumber(post?.createdAt) ?? asNumber(post?.publishedAt) ?? 0;
      const text = comparableText(unescapeLittleText(asString(post?.commentary) ?? ''));
      if (id && createdAt >= since && text === wanted) {
        return { found: { platformPostId: id, url: urlOf(id) }, permitted: true };
      }
    }
    return { found: null, permitted: true };
  }

  /**
   * The post's video as a URN LinkedIn made AVAILABLE, or null when the post has none. Videos API:
   * initializeUpload (its size), one PUT per part it names (streamed in order, each part's ETag kept),
   * finalizeUpload; the URN is checkpointed then, and each poll reads GET /rest/videos/{urn}:
   * PROCESSING or WAITING_UPLOAD (ProcessingPendingError, no worker held), AVAILABLE, or
   * PROCESSING_FAILED (docs/adr/0041).
   */
  private async sentVideo(api: LinkedInApi, author: string, input: PublishInput): Promise<string | null> {
    let urn = sentVideoId(input.checkpoint, VIDEO_CHECKPOINT);
    if (!urn) {
      const video = await videoToSend(input.media, LINKEDIN_VIDEO);
      if (!video) return null;
      urn = await this.uploadVideo(api, author, video);
      await input.saveCheckpoint({ [VIDEO_CHECKPOINT]: urn });
    }
    const res = await api.call({ method: 'GET', path: `/rest/videos/${encodeURIComponent(urn)}` }, 'media');
    const data = asObject(res.data);
    const status = asString(data?.status);
    if (status === 'AVAILABLE') return urn;
    if (status === 'PROCESSING_FAILED') {
      const why = asString(data?.processingFailureReason) ?? 'no reason given';
      throw new VideoProcessingFailedError(`LinkedIn could not process the video (${urn}): ${why}`);
    }
    throw new ProcessingPendingError(
      `LinkedIn is processing the video (${urn}, ${status ?? 'PROCESSING'})`,
      this.videoPollMs,
    );
  }

  private async uploadVideo(api: LinkedInApi, author: string, video: PublishMedia): Promise<string> {
    const init = await api.call(
      {
        method: 'POST',
        path: '/rest/videos?action=initializeUpload',
        json: {
          initializeUploadRequest: {
            owner: author,
            fileSizeBytes: video.size,
            uploadCaptions: false,
            uploadThumbnail: false,
          },
        },
      },
      'media',
    );
    const value = asObject(asObject(init.data)?.value);
    const urn = asString(value?.video);
    const parts: UploadPart[] = (asArray(value?.uploadInstructions) ?? []).flatMap((i) => {
      const o = asObject(i);
      const uploadUrl = asString(o?.uploadUrl);
      const firstByte = asNumber(o?.firstByte);
      const lastByte = asNumber(o?.lastByte);
      return uploadUrl && firstByte !== undefined && lastByte !== undefined ? [{ uploadUrl, firstByte, lastByte }] : [];
    });
    parts.sort((a, b) => a.firstByte - b.firstByte);
    const covered = parts.every((p, i) => p.firstByte === (i === 0 ? 0 : parts[i - 1].lastByte + 1));
    if (!urn || parts.length === 0 || !covered || parts[parts.length - 1].lastByte !== video.size - 1) {
      throw new TransientProviderError(
        'LinkedIn initialized the video upload without usable upload instructions',
        init.status,
      );
    }
    const etags: string[] = [];
    let index = 0;
    try {
      for await (const bytes of partBytes(video, parts)) {
        const put = await api.upload(
          parts[index].uploadUrl,
          Readable.from([bytes]),
          bytes.length,
          'application/octet-stream',
        );
        if (put.status < 200 || put.status >= 300) throw mapLinkedInFailure(put, 'media', this.version);
        const etag = put.headers.etag;
        const value = Array.isArray(etag) ? etag[0] : etag;
        if (!value) throw new TransientProviderError('LinkedIn took a video part but returned no ETag', put.status);
        etags.push(value);
        index++;
      }
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (err instanceof MediaSizeMismatchError) {
        throw new MediaRejectedError(`The video could not be sent to LinkedIn: ${err.message}`);
      }
      throw new TransientProviderError(`The video could not be read for LinkedIn: ${(err as Error).message}`);
    }
    await api.call(
      {
        method: 'POST',
        path: '/rest/videos?action=finalizeUpload',
        json: {
          finalizeUploadRequest: {
            video: urn,
            uploadToken: asString(value?.uploadToken) ?? '',
            uploadedPartIds: etags,
          },
        },
      },
      'media',
    );
    return urn;
  }

  /** Images API: initialize an upload owned by the author, PUT the bytes; returns the image URN. */
  private async upload(api: LinkedInApi, author: string, media: PublishMedia): Promise<string> {
    const init = await api.call(
      {
        method: 'POST',
        path: '/rest/images?action=initializeUpload',
        json: { initializeUploadRequest: { owner: author } },
      },
      'media',
    );
    const value = asObject(asObject(init.data)?.value);
    const uploadUrl = asString(value?.uploadUrl);
    const image = asString(value?.image);
    if (!uploadUrl || !image) {
      throw new TransientProviderError('LinkedIn initialized the upload but returned no upload URL', init.status);
    }
    const put = await api.upload(uploadUrl, openExactSize(media), media.size, media.mimeType);
    if (put.status < 200 || put.status >= 300) throw mapLinkedInFailure(put, 'media', this.version);
    return image;
  }

  /** Organization ids of the pages the member may post as (approved posting roles). */
  private async administeredOrganizations(api: LinkedInApi): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; ids.length < LINKEDIN_MAX_ORGANIZATIONS; start += 100) {
      const res = await api.send({
        method: 'GET',
        path: `/rest/organizationAcls?q=roleAssignee&state=APPROVED&start=${start}&count=100`,
      });
      if (res.status === 403) return ids; // no organization access granted: the member only
      if (res.status < 200 || res.status >= 300) throw mapLinkedInFailure(res, 'content', this.version);
      const elements = asArray(asObject(res.data)?.elements) ?? [];
      for (const item of elements) {
        const acl = asObject(item);
        const id = /^urn:li:organization:(\d+)$/.exec(asString(acl?.organization) ?? '')?.[1];
        const role = asString(acl?.role) ?? '';
        if (
          id &&
          LINKEDIN_POSTING_ROLES.includes(role) &&
          !ids.includes(id) &&
          ids.length < LINKEDIN_MAX_ORGANIZATIONS
        ) {
          ids.push(id);
        }
      }
      if (elements.length < 100) break;
    }
    return ids;
  }

  /** One organization page as a target; its name from the organization lookup when LinkedIn gives it. */
  private async organization(api: LinkedInApi, id: string, credentials: unknown): Promise<ConnectedAccount> {
    const res = await api.send({ method: 'GET', path: `/rest/organizations/${id}` });
    if (res.status === 429 || res.status >= 500) throw mapLinkedInFailure(res, 'content', this.version);
    const org = res.status === 200 ? asObject(res.data) : undefined;
    const name = asString(org?.localizedName) || `Organization ${id}`;
    const vanity = asString(org?.vanityName);
    return this.account(credentials, {
      externalId: `urn:li:organization:${id}`,
      kind: 'organization',
      name,
      handle: vanity ?? name,
      avatarUrl: null,
      profileUrl: `https://www.linkedin.com/company/${vanity ?? id}`,
    });
  }

  private account(
    raw: unknown,
    profile: Omit<ConnectedAccount, 'limits' | 'credentials'> & { kind: AccountKind },
  ): ConnectedAccount {
    const creds: LinkedInCredentials = parseLinkedInCredentials(raw);
    const stored = asObject(raw) ?? {};
    return {
      ...profile,
      limits: copyLimits(LINKEDIN_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        authorUrn: profile.externalId,
      },
    };
  }
}

/** Scopes asked of members by default: member and organization posting and analytics. */
const LINKEDIN_SCOPES = [
  'openid',
  'profile',
  'w_member_social',
  'r_member_postAnalytics',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

/** The LinkedIn plugin: OAuth 2.0 authorization code, registered in provider.list.ts. */
export const linkedinPlugin = defineProvider({
  id: 'linkedin',
  apiVersion: {
    pinned: '202610',
    setting: 'apiVersion',
    sunset: linkedInVersionSunset,
    source:
      'LinkedIn Marketing API versioning (learn.microsoft.com), versions supported at least 12 months, checked 2026-11-29',
  },
  displayName: 'LinkedIn',
  connectKind: 'oauth',
  credentials: LinkedInCredentialsDto,
  defaultLimits: LINKEDIN_LIMITS,
  capabilities: { altText: true },
  oauth: {
    defaultHosts: { auth: 'https://www.linkedin.com', api: 'https://api.linkedin.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/v2/authorization`,
    tokenUrl: (hosts) => `${hosts.auth}/oauth/v2/accessToken`,
    // LINKEDIN_SCOPES overrides these (apps without the Community Management API lack the last ones).
    scopes: LINKEDIN_SCOPES,
    clientAuthentication: 'body',
  },
  settings: {
    ...oauthAppSettings('LINKEDIN', {
      clientId:
        'LinkedIn app (callback {PUBLIC_BASE_URL}/api/oauth/linkedin/callback); LinkedIn is listed disabled without both',
      authBaseUrl: 'override of https://www.linkedin.com (consent page and token endpoint)',
      apiBaseUrl: 'override of https://api.linkedin.com (REST API)',
      scopes:
        `scopes asked, space-separated; default: ${LINKEDIN_SCOPES.join(' ')}\n` +
        "(an app without LinkedIn's Community Management API: openid profile w_member_social, members only)",
    }),
    apiVersion: setting.matches('LINKEDIN_API_VERSION', {
      pattern: /^\d{6}$/,
      message: 'must be a version in YYYYMM format',
      default: '202610',
      description: 'LinkedIn-Version header of REST calls (YYYYMM); LinkedIn retires a version after about a year',
    }),
    videoPollMs: setting.int('LINKEDIN_VIDEO_POLL_MS', {
      default: VIDEO_POLL_MS,
      min: 10,
      description:
        'interval between two reads of a video LinkedIn is processing (LinkedIn gives no hint), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
  },
  // Revocation: POST /oauth/v2/revoke on the consent host, with the app's client id and secret in the form.
  create: ({ http, settings }) =>
    withRevocation(new LinkedInProvider(http, settings.apiVersion, settings.videoPollMs), async (credentials) => {
      const app = appCredentials('LinkedIn', settings);
      const token = storedToken(credentials, 'accessToken');
      if (!token) return;
      const url = `${(oauthClientSettings(settings).authBaseUrl ?? 'https://www.linkedin.com').replace(/\/+$/, '')}/oauth/v2/revoke`;
      await revokeAt(http, 'LinkedIn', {
        method: 'POST',
        url,
        form: { client_id: app.id, client_secret: app.secret, token },
      });
    }),
});
