import { OutboundHttp, SsrfBlockedError } from '../../common/http/outbound-http';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { countGraphemes } from '../grapheme.util';
import { exactSizeChunks, openExactSize } from '../media-stream.util';
import { CallKind, mapHttpFailure, mapThrown } from '../provider-http.util';
import { asNonEmptyString, asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  InvalidCredentialsError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import { defineProvider } from '../provider-plugin';
import type {
  ChannelLimits,
  ConnectedAccount,
  MetricsResult,
  PostDraft,
  Problem,
  PublishInput,
  PublishMedia,
  PublishResult,
  PublishedRef,
  SocialProvider,
  ThreadPost,
} from '../social-provider.interface';
import { BlueskySession, createSession, parseSessionTokens } from './bluesky-session';
import { BLUESKY, BlueskyXrpc, XrpcCall, XrpcResponse, xrpcErrorText } from './bluesky-xrpc.client';
import {
  BlueskyCredentialsDto,
  BlueskyStoredCredentials,
  parseBlueskyLogin,
  parseBlueskyStoredCredentials,
  toStoredRecord,
} from './bluesky.credentials';
import { setting } from '../../config/settings';
import { DEFAULT_VIDEO_POLL_MS, pollDelayMs, sentVideoId, videoRequirements, videoToSend } from '../video-publish.util';
import { BLUESKY_LIMITS, BLUESKY_MAX_TEXT_BYTES, BLUESKY_VIDEO_LIMITS } from './bluesky.limits';
import { Facet, detectFacets, toRecordFacet } from './facets';
import { deterministicTid } from './tid';

const POST_COLLECTION = 'app.bsky.feed.post';

export interface BlueskyProviderOptions {
  /** Time budget of one blob upload request. Default: the OutboundHttp default. */
  uploadTimeoutMs?: number;
  /** The video service (app.bsky.video.*). Default https://video.bsky.app. */
  videoServiceUrl?: string;
  /** Pause before the next read of a video job being processed (BLUESKY_VIDEO_POLL_MS). Default DEFAULT_VIDEO_POLL_MS. */
  videoPollMs?: number;
  /**
   * Videos larger than this go up in parts (app.bsky.video.startUpload, uploadPart, finishUpload)
   * instead of one uploadVideo request. Default BLUESKY_VIDEO_MULTIPART_ABOVE_BYTES.
   */
  videoMultipartAboveBytes?: number;
}

/**
 * Videos above 100,000,000 bytes (what the video service took in one uploadVideo request until the
 * embed's cap rose to 300,000,000 in August 2026) are sent with the multipart upload the lexicons
 * added with it (test/fixtures/networks/bluesky/SOURCE.md).
 */
export const BLUESKY_VIDEO_MULTIPART_ABOVE_BYTES = 100_000_000;

export const BLUESKY_VIDEO_SERVICE = 'https://video.bsky.app';
/** Checkpoint key of the video service's job for the post's video: never uploaded twice. */
const VIDEO_CHECKPOINT = 'blueskyVideoJobId';
/** What the video service takes (it transcodes itself): any of the service's containers. */
const BLUESKY_VIDEO = videoRequirements(BLUESKY, BLUESKY_VIDEO_LIMITS);

/** app.bsky.embed.video: the processed blob, its alt text and its shape. */
interface VideoEmbed {
  $type: 'app.bsky.embed.video';
  video: unknown;
  alt?: string;
  aspectRatio?: { width: number; height: number };
}

/** com.atproto.repo.strongRef: a record by URI and content hash. */
interface StrongRef {
  uri: string;
  cid: string;
}

interface PostRecord {
  $type: 'app.bsky.feed.post';
  text: string;
  createdAt: string;
  facets?: Facet[];
  embed?: { $type: 'app.bsky.embed.images'; images: ImageEmbed[] } | VideoEmbed;
  /** A reply: the thread's first post and the post answered. */
  reply?: { root: StrongRef; parent: StrongRef };
}

interface ImageEmbed {
  alt: string;
  image: unknown;
  aspectRatio?: { width: number; height: number };
}

function isOk(res: XrpcResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function failure(res: XrpcResponse, kind: CallKind): ProviderError {
  return mapHttpFailure(BLUESKY, res.status, res.headers, xrpcErrorText(res.data), kind);
}

/** The job status in an answer of the video service: `{jobStatus: {...}}` (the lexicon) or the status itself. */
function jobStatusOf(data: unknown): Record<string, unknown> | undefined {
  const obj = asObject(data);
  return asObject(obj?.jobStatus) ?? obj;
}

/** Record key of an at:// URI (at://did/collection/rkey). */
function rkeyOf(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1);
}

/**
 * Bluesky adapter (AT Protocol XRPC). Publishing is idempotent through a record key derived from the
 * publication (createdAt + idempotency key): a retry hits the existing record and returns it. A thread
 * part is a post whose `reply` names the thread's first post (root) and the previous part (parent) as
 * strong references (URI + CID); the CID of each part is returned as `replyRef` for the next one.
 */
export class BlueskyProvider implements SocialProvider {
  readonly id = 'bluesky' as const;

  constructor(
    private readonly http: OutboundHttp,
    private readonly options: BlueskyProviderOptions = {},
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const login = parseBlueskyLogin(credentials);
    const xrpc = new BlueskyXrpc(this.http, login.serviceUrl);
    const host = new URL(login.serviceUrl).host;

    let res: XrpcResponse;
    try {
      res = await createSession(xrpc, login);
    } catch (err) {
      if (err instanceof SsrfBlockedError) {
        throw new InvalidCredentialsError(`The Bluesky service URL is not allowed: ${err.message}`);
      }
      const reason = err instanceof Error ? `: ${err.message}` : '';
      throw new InvalidCredentialsError(`The Bluesky service ${host} could not be reached${reason}`);
    }
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      throw new InvalidCredentialsError(
        `Bluesky refused the login: ${xrpcErrorText(res.data) || `HTTP ${res.status}`}`,
        res.status,
      );
    }
    const tokens = isOk(res) ? parseSessionTokens(res.data) : undefined;
    if (!tokens) {
      throw new InvalidCredentialsError(
        `The Bluesky service ${host} could not be reached (HTTP ${res.status})`,
        res.status,
      );
    }

    const stored: BlueskyStoredCredentials = { ...login, ...tokens };
    const session = new BlueskySession(xrpc, stored);
    const profile = await this.fetchProfile(session, tokens.did);
    const current = session.credentials;
    return {
      externalId: current.did,
      name: profile.displayName ?? current.handle,
      handle: `@${current.handle}`,
      avatarUrl: profile.avatar ?? null,
      profileUrl: `https://bsky.app/profile/${current.handle}`,
      limits: { ...BLUESKY_LIMITS, supportedMimeTypes: [...BLUESKY_LIMITS.supportedMimeTypes] },
      credentials: toStoredRecord(current),
    };
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return countGraphemes(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(BLUESKY, post.content, post.media, limits, {
      // The publisher asks for the video as the network takes it: a faster or larger one is converted.
      convertsVideo: true,
    });
    const graphemes = this.countCharacters(post.content);
    if (graphemes > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${graphemes} characters long; Bluesky allows ${limits.maxCharacters}`,
      });
    }
    const bytes = Buffer.byteLength(post.content, 'utf8');
    if (bytes > BLUESKY_MAX_TEXT_BYTES) {
      problems.push({
        field: 'content',
        message: `The text is ${bytes} bytes long; Bluesky allows ${BLUESKY_MAX_TEXT_BYTES}`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput): Promise<PublishResult> {
    const creds = parseBlueskyStoredCredentials(input.credentials);
    const session = new BlueskySession(new BlueskyXrpc(this.http, creds.serviceUrl), creds);

    const video = await this.sentVideo(session, input);
    const images: ImageEmbed[] = [];
    if (!video) for (const media of input.media) images.push(await this.uploadImage(session, media));

    const record: PostRecord = {
      $type: POST_COLLECTION,
      text: input.content,
      createdAt: input.createdAt.toISOString(),
    };
    const facets = await this.buildFacets(session, input.content);
    if (facets.length > 0) record.facets = facets;
    if (images.length > 0) record.embed = { $type: 'app.bsky.embed.images', images };
    if (video) record.embed = video;
    if (input.replyTo) {
      record.reply = {
        root: await this.strongRef(session, input.replyTo.root),
        parent: await this.strongRef(session, input.replyTo.parent),
      };
    }

    const rkey = deterministicTid(input.createdAt, input.idempotencyKey);
    const { uri, cid } = await this.createRecord(session, rkey, record);
    const current = session.credentials;
    return {
      platformPostId: uri,
      url: `https://bsky.app/profile/${current.handle}/post/${rkeyOf(uri)}`,
      replyRef: { cid },
      ...(session.changed ? { credentials: toStoredRecord(current) } : {}),
    };
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = parseBlueskyStoredCredentials(credentials);
    const session = new BlueskySession(new BlueskyXrpc(this.http, creds.serviceUrl), creds);
    const res = await session.call({
      method: 'GET',
      nsid: 'app.bsky.feed.getPosts',
      params: { uris: ref.platformPostId },
    });
    if (!isOk(res)) throw failure(res, 'content');
    const posts = asObject(res.data)?.posts;
    const post = Array.isArray(posts)
      ? asObject(posts.find((p) => asObject(p)?.uri === ref.platformPostId))
      : undefined;
    if (!post) throw new ContentRejectedError('The post no longer exists on Bluesky', 404);
    const count = (name: string): number | null => asNumber(post[name]) ?? null;
    const raw = {
      likeCount: count('likeCount'),
      repostCount: count('repostCount'),
      replyCount: count('replyCount'),
      quoteCount: count('quoteCount'),
    };
    return {
      metrics: {
        likes: raw.likeCount,
        reposts: raw.repostCount,
        replies: raw.replyCount,
        quotes: raw.quoteCount,
        impressions: null,
        raw,
      },
      ...(session.changed ? { credentials: toStoredRecord(session.credentials) } : {}),
    };
  }

  /** Profile for connect; any failure other than refused credentials falls back to the handle. */
  private async fetchProfile(session: BlueskySession, did: string): Promise<{ displayName?: string; avatar?: string }> {
    try {
      const res = await session.call({ method: 'GET', nsid: 'app.bsky.actor.getProfile', params: { actor: did } });
      if (!isOk(res)) return {};
      const profile = asObject(res.data);
      return { displayName: asNonEmptyString(profile?.displayName), avatar: asNonEmptyString(profile?.avatar) };
    } catch (err) {
      if (err instanceof ProviderError && err.code === 'CREDENTIALS_REVOKED') {
        throw new InvalidCredentialsError(`Bluesky refused the new session: ${err.message}`, err.status);
      }
      return {};
    }
  }

  /**
   * The post's video as an embed, or null when the post has none. Sent once to the video service
   * (app.bsky.video.uploadVideo with a service token from the PDS), its job id checkpointed; each poll
   * reads app.bsky.video.getJobStatus: in progress (ProcessingPendingError, no worker held), completed
   * (its blob goes in the embed) or failed (docs/adr/0041).
   */
  private async sentVideo(session: BlueskySession, input: PublishInput): Promise<VideoEmbed | null> {
    const service = new BlueskyXrpc(this.http, this.options.videoServiceUrl ?? BLUESKY_VIDEO_SERVICE);
    const original = input.media.find((m) => isVideoMedia(m));
    if (!original) return null;
    let jobId = sentVideoId(input.checkpoint, VIDEO_CHECKPOINT);
    let status: Record<string, unknown> | undefined;
    if (!jobId) {
      const video = await videoToSend(input.media, BLUESKY_VIDEO);
      if (!video) return null;
      const pds = new URL(session.credentials.serviceUrl);
      const auth = await session.call({
        method: 'GET',
        nsid: 'com.atproto.server.getServiceAuth',
        params: {
          aud: `did:web:${pds.host}`,
          lxm: 'com.atproto.repo.uploadBlob',
          exp: String(Math.floor(Date.now() / 1000) + 30 * 60),
        },
      });
      if (!isOk(auth)) throw failure(auth, 'media');
      const token = asNonEmptyString(asObject(auth.data)?.token);
      if (!token) throw new TransientProviderError('Bluesky gave no service token for the video upload', auth.status);
      const multipart = video.size > (this.options.videoMultipartAboveBytes ?? BLUESKY_VIDEO_MULTIPART_ABOVE_BYTES);
      ({ jobId, status } = multipart
        ? await this.uploadVideoInParts(service, token, video)
        : await this.uploadVideoWhole(service, token, video));
      await input.saveCheckpoint({ [VIDEO_CHECKPOINT]: jobId });
    } else {
      let res: XrpcResponse;
      try {
        res = await service.send({ method: 'GET', nsid: 'app.bsky.video.getJobStatus', params: { jobId } });
      } catch (err) {
        throw mapThrown(BLUESKY, err);
      }
      if (!isOk(res)) throw failure(res, 'media');
      status = jobStatusOf(res.data);
    }
    const state = asString(status?.state);
    const blob = asObject(status?.blob);
    if (state === 'JOB_STATE_COMPLETED' && blob) {
      const embed: VideoEmbed = { $type: 'app.bsky.embed.video', video: blob };
      if (original.altText) embed.alt = original.altText;
      if (original.width && original.height) embed.aspectRatio = { width: original.width, height: original.height };
      return embed;
    }
    if (state === 'JOB_STATE_FAILED') {
      const why = asString(status?.message) ?? asString(status?.error) ?? 'no reason given';
      throw new VideoProcessingFailedError(`Bluesky could not process the video (job ${jobId}): ${why}`);
    }
    const progress = asNumber(status?.progress);
    throw new ProcessingPendingError(
      `Bluesky is processing the video (job ${jobId}, ${state ?? 'queued'}${progress !== undefined ? `, ${progress}%` : ''})`,
      pollDelayMs(undefined, this.options.videoPollMs),
    );
  }

  /**
   * app.bsky.video.uploadVideo: the whole file in one request. The lexicon declares no parameters (the
   * service token names the account), so none are sent.
   */
  private async uploadVideoWhole(
    service: BlueskyXrpc,
    token: string,
    video: PublishMedia,
  ): Promise<{ jobId: string; status: Record<string, unknown> | undefined }> {
    let res: XrpcResponse;
    try {
      res = await service.send(
        {
          method: 'POST',
          nsid: 'app.bsky.video.uploadVideo',
          raw: () => ({ body: openExactSize(video), contentType: video.mimeType, contentLength: video.size }),
          timeoutMs: this.options.uploadTimeoutMs,
        },
        token,
      );
    } catch (err) {
      throw mapThrown(BLUESKY, err);
    }
    const status = jobStatusOf(res.data);
    const jobId = asNonEmptyString(status?.jobId);
    // 409 already_exists: the service has this very file already; its job is the one to follow.
    if (!isOk(res) && !(res.status === 409 && jobId)) throw failure(res, 'media');
    if (!jobId) throw new TransientProviderError('The Bluesky video service returned no job id', res.status);
    return { jobId, status };
  }

  /**
   * The multipart upload: startUpload with the exact size (the service answers the part size and
   * count), each part through uploadPart (exact lengths, read from the file one part at a time), then
   * finishUpload, whose completedJobId is the processing job to poll (it may differ from the upload's
   * job on deduplication). A retry after a failure mid-way starts a new upload.
   */
  private async uploadVideoInParts(
    service: BlueskyXrpc,
    token: string,
    video: PublishMedia,
  ): Promise<{ jobId: string; status: Record<string, unknown> | undefined }> {
    const send = async (call: XrpcCall): Promise<XrpcResponse> => {
      let res: XrpcResponse;
      try {
        res = await service.send({ ...call, timeoutMs: this.options.uploadTimeoutMs }, token);
      } catch (err) {
        throw mapThrown(BLUESKY, err);
      }
      if (!isOk(res)) throw failure(res, 'media');
      return res;
    };
    const name = (video.filename || `${video.id}.mp4`).slice(0, 256);
    const started = asObject(
      (
        await send({
          method: 'POST',
          nsid: 'app.bsky.video.startUpload',
          json: { sizeBytes: video.size, mimeType: video.mimeType, name },
        })
      ).data,
    );
    const uploadId = asNonEmptyString(started?.jobId);
    const partSize = asNumber(started?.partSizeBytes);
    const partCount = asNumber(started?.partCount);
    if (!uploadId || !partSize || partSize <= 0 || !partCount) {
      throw new TransientProviderError('The Bluesky video service started an upload without its parts');
    }
    let part = 1;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const body = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await send({
        method: 'POST',
        nsid: 'app.bsky.video.uploadPart',
        params: { jobId: uploadId, partNumber: String(part) },
        raw: () => ({ body, contentType: 'application/octet-stream', contentLength: body.length }),
      });
      part += 1;
    };
    for await (const chunk of exactSizeChunks(video)) {
      let rest = chunk;
      while (rest.length > 0) {
        const take = Math.min(rest.length, partSize - pendingBytes);
        pending.push(rest.subarray(0, take));
        pendingBytes += take;
        rest = rest.subarray(take);
        if (pendingBytes === partSize) await flush();
      }
    }
    await flush();
    const finished = asObject(
      (await send({ method: 'POST', nsid: 'app.bsky.video.finishUpload', json: { jobId: uploadId } })).data,
    );
    const jobId = asNonEmptyString(finished?.completedJobId);
    if (!jobId) throw new TransientProviderError('The Bluesky video service finished the upload without a job id');
    return { jobId, status: jobStatusOf(finished) };
  }

  private async uploadImage(session: BlueskySession, media: PublishMedia): Promise<ImageEmbed> {
    const res = await session.call({
      method: 'POST',
      nsid: 'com.atproto.repo.uploadBlob',
      raw: () => ({ body: openExactSize(media), contentType: media.mimeType, contentLength: media.size }),
      timeoutMs: this.options.uploadTimeoutMs,
    });
    if (!isOk(res)) throw failure(res, 'media');
    const blob = asObject(asObject(res.data)?.blob);
    if (!blob) throw new TransientProviderError('Bluesky accepted the image but returned no blob', res.status);
    const image: ImageEmbed = { alt: media.altText ?? '', image: blob };
    if (media.width && media.height && media.width > 0 && media.height > 0) {
      image.aspectRatio = { width: media.width, height: media.height };
    }
    return image;
  }

  /** Link, tag and mention facets; mentions whose handle does not resolve are left as plain text. */
  private async buildFacets(session: BlueskySession, text: string): Promise<Facet[]> {
    const detected = detectFacets(text);
    const handles = [...new Set(detected.flatMap((f) => (f.type === 'mention' ? [f.handle] : [])))];
    const dids = new Map<string, string>();
    for (const handle of handles) {
      const did = await this.resolveHandle(session, handle);
      if (did) dids.set(handle, did);
    }
    return detected.flatMap((f) => {
      const facet = toRecordFacet(f, f.type === 'mention' ? dids.get(f.handle) : undefined);
      return facet ? [facet] : [];
    });
  }

  private async resolveHandle(session: BlueskySession, handle: string): Promise<string | undefined> {
    const res = await session.callAnonymous({
      method: 'GET',
      nsid: 'com.atproto.identity.resolveHandle',
      params: { handle },
    });
    if (isOk(res)) {
      const did = asString(asObject(res.data)?.did);
      return did?.startsWith('did:') ? did : undefined;
    }
    if (res.status === 429 || res.status >= 500) throw failure(res, 'content');
    return undefined;
  }

  /**
   * The strong reference of a post of the thread: its URI and the CID kept when it was published, or,
   * when none was kept, the CID read back from the repository.
   */
  private async strongRef(session: BlueskySession, post: ThreadPost): Promise<StrongRef> {
    const kept = post.replyRef?.cid;
    if (kept) return { uri: post.platformPostId, cid: kept };
    const [, , repo = '', collection = '', rkey = ''] = post.platformPostId.replace(/^at:\/\//, '//').split('/');
    const res = await session.call({
      method: 'GET',
      nsid: 'com.atproto.repo.getRecord',
      params: { repo, collection, rkey },
    });
    if (!isOk(res)) throw failure(res, 'content');
    const cid = asNonEmptyString(asObject(res.data)?.cid);
    if (!cid) throw new ContentRejectedError(`Bluesky returned no CID for ${post.platformPostId}`);
    return { uri: post.platformPostId, cid };
  }

  /**
   * Creates the post under its deterministic record key. When the key is taken (the reference PDS
   * answers 500 InternalServerError today; newer ones a 400/409 error), the existing record is read
   * back and returned if it is this publication's post.
   */
  private async createRecord(session: BlueskySession, rkey: string, record: PostRecord): Promise<StrongRef> {
    const repo = session.credentials.did;
    const res = await session.call({
      method: 'POST',
      nsid: 'com.atproto.repo.createRecord',
      json: { repo, collection: POST_COLLECTION, rkey, record },
    });
    if (isOk(res)) {
      const created = asObject(res.data);
      const uri = asNonEmptyString(created?.uri);
      const cid = asNonEmptyString(created?.cid);
      if (!uri || !cid) {
        throw new TransientProviderError('Bluesky created the post but returned no URI or CID', res.status);
      }
      return { uri, cid };
    }
    if (res.status === 400 || res.status === 409 || res.status === 500) {
      const existing = await this.findExisting(session, repo, rkey, record);
      if (existing) return existing;
    }
    throw failure(res, 'content');
  }

  private async findExisting(
    session: BlueskySession,
    repo: string,
    rkey: string,
    record: PostRecord,
  ): Promise<StrongRef | undefined> {
    let res: XrpcResponse;
    try {
      res = await session.call({
        method: 'GET',
        nsid: 'com.atproto.repo.getRecord',
        params: { repo, collection: POST_COLLECTION, rkey },
      });
    } catch {
      return undefined;
    }
    if (!isOk(res)) return undefined;
    const found = asObject(res.data);
    const value = asObject(found?.value);
    const uri = asNonEmptyString(found?.uri);
    const cid = asNonEmptyString(found?.cid);
    if (!uri || !cid || !value) return undefined;
    if (value.text !== record.text || value.createdAt !== record.createdAt) {
      throw new ContentRejectedError(`Another Bluesky post already uses the record key ${rkey}`, 409);
    }
    return { uri, cid };
  }
}

/** The Bluesky plugin, registered in provider.list.ts. */
export const blueskyPlugin = defineProvider({
  id: 'bluesky',
  apiVersion: {
    pinned: 'XRPC (unversioned)',
    source:
      'AT Protocol lexicons (bluesky-social/atproto, recorded in test/fixtures/networks/bluesky), checked 2026-11-29: XRPC methods are not versioned; lexicons change compatibly',
  },
  displayName: 'Bluesky',
  connectKind: 'credentials',
  credentials: BlueskyCredentialsDto,
  defaultLimits: BLUESKY_LIMITS,
  capabilities: { altText: true },
  settings: {
    videoServiceUrl: setting.url(
      'BLUESKY_VIDEO_SERVICE_URL',
      'override of https://video.bsky.app, the video service Bluesky videos are uploaded to (e.g. a test server)',
    ),
    videoPollMs: setting.int('BLUESKY_VIDEO_POLL_MS', {
      default: DEFAULT_VIDEO_POLL_MS,
      min: 10,
      description:
        'interval between two reads of a video job the video service is processing (app.bsky.video.getJobStatus), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
  },
  create: ({ http, settings }) =>
    new BlueskyProvider(http, {
      videoServiceUrl: settings.videoServiceUrl ?? BLUESKY_VIDEO_SERVICE,
      videoPollMs: settings.videoPollMs,
    }),
});
