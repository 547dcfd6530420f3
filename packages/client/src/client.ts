import { createClient, type Client } from './generated/client';
import * as api from './generated/sdk.gen';
import type {
  ApiKeyDto,
  ChannelAnalyticsDto,
  ChannelDto,
  ConnectChannelDto,
  ConnectLinkDto,
  CreateConnectLinkDto,
  CreatedConnectLinkDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  CreatePostDto,
  ListChannelsData,
  ListEventsData,
  ListFreeSlotsData,
  FreeSlotsDto,
  PostingScheduleDto,
  PutPostingScheduleDto,
  ListPostsData,
  MediaDto,
  PostAnalyticsDto,
  PostDto,
  PostValidationDto,
  RedeliveryDto,
  ReplayInputDto,
  ReplayResultDto,
  UpdateMediaDto,
  UploadFromUrlDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookInputDto,
  WebhookTestEventDto,
  WebhookWithSecretDto,
  AnalyticsRefreshDto,
  GetChannelAnalyticsData,
  UpdateWorkspaceDto,
  WorkspaceDto,
  CreateWorkspaceDto,
  ChangeWorkspaceDto,
  ListWorkspacesData,
  GetWorkspaceUsageData,
  WorkspaceUsageDto,
} from './generated/types.gen';
import { SocialPublishingError } from './errors';
import type { SocialPublishingEvent } from './events';
import { Page, PageIterator } from './pagination';
import { RateLimit, Transport } from './transport';
import { UploadOptions, UploadSource, uploadMedia } from './upload';

export interface SocialPublishingOptions {
  /** An API key of your workspace (`spk_...`). */
  apiKey: string;
  /** The API's base URL, ending with `/api`, e.g. `https://social.example.com/api`. */
  baseUrl: string;
  /** Retries of one call (429 always; 5xx and network failures for GET, PUT and DELETE). Default 3. */
  maxRetries?: number;
  /** Time limit of one attempt, in ms. Default 30,000. */
  timeoutMs?: number;
  /** A fetch implementation (default: the global `fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Act in this workspace of your organization instead of the key's own (sent as `X-Workspace-Id`; the key
   * needs the scope `workspaces:manage`). See also `forWorkspace`.
   */
  workspaceId?: string;
}

/** `limit` (1-100, default 20) and `cursor` of every list. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export type ListPostsQuery = NonNullable<ListPostsData['query']>;
export type ListChannelsQuery = NonNullable<ListChannelsData['query']>;
export type ListEventsQuery = NonNullable<ListEventsData['query']>;
export type ChannelAnalyticsQuery = NonNullable<GetChannelAnalyticsData['query']>;
export type FreeSlotsQuery = NonNullable<ListFreeSlotsData['query']>;
export type ListWorkspacesQuery = NonNullable<ListWorkspacesData['query']>;
export type WorkspaceUsageQuery = NonNullable<GetWorkspaceUsageData['query']>;
export type { RateLimit };

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of `media.uploadFromUrl`. */
export interface UploadFromUrlOptions extends CallOptions {
  /**
   * When the service answers 202 (a big or slow download it finishes in the background), read the item
   * until it is `ready` (returned) or `failed` (thrown). Default true; false returns the `processing` item.
   */
  waitUntilReady?: boolean;
  /** Pause between two reads of a `processing` item, in ms. Default 2,000. */
  pollIntervalMs?: number;
  /** Longest wait for a `processing` item, in ms. Default 900,000 (15 minutes). */
  waitTimeoutMs?: number;
}

/** What a generated call resolves to (throwOnError off): data, or an error the interceptor made a SocialPublishingError. */
type Generated = Promise<{ data?: unknown; error?: unknown }>;
type DataOf<R extends Generated> = NonNullable<Awaited<R>['data']>;

/**
 * The Social Publishing Service, resource by resource:
 * `new SocialPublishing({ apiKey, baseUrl }).posts.create({ content, channelIds, publishNow: true })`.
 * Every failure is thrown as a SocialPublishingError.
 */
export class SocialPublishing {
  readonly posts: Posts;
  readonly media: Media;
  readonly channels: Channels;
  readonly webhooks: Webhooks;
  readonly connectLinks: ConnectLinks;
  readonly events: Events;
  readonly analytics: Analytics;
  readonly apiKeys: ApiKeys;
  readonly workspace: Workspace;
  /** Your organization's workspaces (scope `workspaces:manage`): one per customer of your product. */
  readonly workspaces: Workspaces;
  /** The generated low-level client (every operation of the OpenAPI document, in `./generated`). */
  readonly client: Client;
  private lastRateLimit: RateLimit | undefined;
  readonly maxRetries: number;
  private readonly options: SocialPublishingOptions;

  constructor(options: SocialPublishingOptions) {
    if (!options?.apiKey) throw new TypeError('SocialPublishing: apiKey is required');
    if (!options.baseUrl) throw new TypeError('SocialPublishing: baseUrl is required');
    const base = options.baseUrl.replace(/\/+$/, '');
    if (!base.endsWith('/api')) {
      throw new TypeError(`SocialPublishing: baseUrl must end with /api (got ${options.baseUrl})`);
    }
    this.options = options;
    this.maxRetries = options.maxRetries ?? 3;
    const userFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const transport = new Transport({
      fetch: userFetch,
      maxRetries: this.maxRetries,
      timeoutMs: options.timeoutMs ?? 30_000,
      onRateLimit: (r) => (this.lastRateLimit = r),
    });
    // The document's paths are relative to a server address ending with /api (docs/adr/0011).
    this.client = createClient({
      baseUrl: base,
      fetch: (input, init) => transport.fetch(input instanceof Request && !init ? input : new Request(input, init)),
      headers: {
        'X-API-Key': options.apiKey,
        ...(options.workspaceId ? { 'X-Workspace-Id': options.workspaceId } : {}),
      },
    });
    this.client.interceptors.error.use((error, response) =>
      error instanceof SocialPublishingError || !response ? error : SocialPublishingError.fromResponse(response, error),
    );
    const call = this.call.bind(this);
    this.posts = new Posts(this.client, call);
    this.media = new Media(this.client, call, this.maxRetries);
    this.channels = new Channels(this.client, call);
    this.webhooks = new Webhooks(this.client, call);
    this.connectLinks = new ConnectLinks(this.client, call);
    this.events = new Events(this.client, call);
    this.analytics = new Analytics(this.client, call);
    this.apiKeys = new ApiKeys(this.client, call);
    this.workspace = new Workspace(this.client, call);
    this.workspaces = new Workspaces(this.client, call);
  }

  /**
   * The same client acting in another workspace of your organization (`X-Workspace-Id`):
   * `client.forWorkspace(id).posts.create(...)` publishes for that customer.
   */
  forWorkspace(workspaceId: string): SocialPublishing {
    return new SocialPublishing({ ...this.options, workspaceId });
  }

  /** The rate-limit headers of the last answer (undefined before the first call). */
  get rateLimit(): RateLimit | undefined {
    return this.lastRateLimit;
  }

  private async call<R extends Generated>(request: R): Promise<DataOf<R>> {
    const result = await request;
    if (result.error !== undefined) {
      const { error } = result;
      if (error instanceof SocialPublishingError) throw error;
      const message = error instanceof Error ? error.message : JSON.stringify(error);
      throw new SocialPublishingError({ status: 0, code: 'NETWORK_ERROR', message, cause: error });
    }
    return result.data as DataOf<R>;
  }
}

type Call = <R extends Generated>(request: R) => Promise<DataOf<R>>;

abstract class Resource {
  constructor(
    protected readonly client: Client,
    protected readonly call: Call,
  ) {}
}

export class Posts extends Resource {
  create(body: CreatePostDto, opts: CallOptions = {}): Promise<PostDto> {
    return this.call(api.createPost({ client: this.client, body, ...opts }));
  }
  get(id: string, opts: CallOptions = {}): Promise<PostDto> {
    return this.call(api.getPost({ client: this.client, path: { id }, ...opts }));
  }
  /**
   * Approves a post pending approval (scope `posts:approve`): it is scheduled at its time, or published now
   * (publishNow, or a time that has passed). A post no longer pending fails with `CONFLICT` (409).
   */
  approve(id: string, opts: CallOptions = {}): Promise<PostDto> {
    return this.call(api.approvePost({ client: this.client, path: { id }, ...opts }));
  }
  /** Rejects a post pending approval: it becomes a draft with `rejection {reason, at, by}`. */
  reject(id: string, reason: string, opts: CallOptions = {}): Promise<PostDto> {
    return this.call(api.rejectPost({ client: this.client, path: { id }, body: { reason }, ...opts }));
  }
  /** Replaces a draft, pending, scheduled or failed post (same body as create). */
  update(id: string, body: CreatePostDto, opts: CallOptions = {}): Promise<PostDto> {
    return this.call(api.updatePost({ client: this.client, path: { id }, body, ...opts }));
  }
  /**
   * Deletes a post that never reached a network (draft, scheduled, or failed with nothing published); a
   * post published on any channel keeps its record and the call fails with `CONFLICT` (409).
   */
  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.deletePost({ client: this.client, path: { id }, ...opts }));
  }
  /** Checks a post against its channels' limits without saving it. */
  validate(body: CreatePostDto, opts: CallOptions = {}): Promise<PostValidationDto> {
    return this.call(api.validatePost({ client: this.client, body, ...opts }));
  }
  /** One page: `{ data, nextCursor }`. */
  list(query: ListPostsQuery = {}, opts: CallOptions = {}): Promise<Page<PostDto>> {
    return this.call(api.listPosts({ client: this.client, query, ...opts }));
  }
  /** Every post matching the query, page after page. */
  iterate(query: Omit<ListPostsQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<PostDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
}

export class Media extends Resource {
  constructor(
    client: Client,
    call: Call,
    private readonly maxRounds: number,
  ) {
    super(client, call);
  }

  /**
   * Uploads a file in chunks (initialize, chunks in parallel with their SHA-256, finalize) and
   * returns the `ready` media item. Resumes from the service's `receivedChunks` after transient
   * failures, and from an earlier attempt with `mediaId`.
   */
  upload(source: UploadSource, options: UploadOptions): Promise<MediaDto> {
    const { client, call } = this;
    return uploadMedia(
      {
        // Any media type string goes through: the server's own set (MEDIA_ALLOWED_TYPES) decides, with a 415.
        initialize: (body, signal) =>
          call(
            api.initializeUpload({ client, body: body as Parameters<typeof api.initializeUpload>[0]['body'], signal }),
          ),
        sendChunk: (body, signal) => call(api.uploadChunk({ client, body, signal })),
        finalize: (mediaId, signal) => call(api.finalizeUpload({ client, body: { mediaId }, signal })),
        get: (id, signal) => call(api.getMedia({ client, path: { id }, signal })),
      },
      source,
      options,
      this.maxRounds,
    );
  }
  /**
   * Lets the service download a file (`POST /media/upload/url`). Small files come back `ready` (201). A
   * big or slow download is answered 202 with the item `processing` while the service finishes it; this
   * then reads the item until it is `ready`, and throws a SocialPublishingError with the item's
   * `error.code` when it ends `failed` (`TIMEOUT` after `waitTimeoutMs`). `waitUntilReady: false`
   * returns the `processing` item instead (watch `media.ready` / `media.failed` events, or `get`).
   */
  async uploadFromUrl(body: UploadFromUrlDto, opts: UploadFromUrlOptions = {}): Promise<MediaDto> {
    const { signal } = opts;
    let item: MediaDto = await this.call(api.uploadFromUrl({ client: this.client, body, signal }));
    if (opts.waitUntilReady === false) return item;
    const deadline = Date.now() + (opts.waitTimeoutMs ?? 900_000);
    while (item.status === 'processing') {
      if (Date.now() >= deadline) {
        throw new SocialPublishingError({
          status: 0,
          code: 'TIMEOUT',
          message: `Media ${item.id} was still processing after ${opts.waitTimeoutMs ?? 900_000} ms`,
        });
      }
      await pause(opts.pollIntervalMs ?? 2_000, signal);
      item = await this.get(item.id, { signal });
    }
    if (item.status === 'failed') {
      throw new SocialPublishingError({
        status: 0,
        code: item.error?.code ?? 'MEDIA_FAILED',
        message: item.error?.message ?? `Media ${item.id} failed`,
      });
    }
    return item;
  }
  get(id: string, opts: CallOptions = {}): Promise<MediaDto> {
    return this.call(api.getMedia({ client: this.client, path: { id }, ...opts }));
  }
  /** Changes the item's alt text (`PATCH /media/{id}`); `null` removes it. */
  update(id: string, body: UpdateMediaDto, opts: CallOptions = {}): Promise<MediaDto> {
    return this.call(api.updateMedia({ client: this.client, path: { id }, body, ...opts }));
  }
  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.deleteMedia({ client: this.client, path: { id }, ...opts }));
  }
}

/** Waits `ms`; an abort ends the wait with an `ABORTED` SocialPublishingError. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () =>
      new SocialPublishingError({ status: 0, code: 'ABORTED', message: 'The wait was aborted', cause: signal?.reason });
    if (signal?.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Channels extends Resource {
  list(query: ListChannelsQuery = {}, opts: CallOptions = {}): Promise<Page<ChannelDto>> {
    return this.call(api.listChannels({ client: this.client, query, ...opts }));
  }
  iterate(query: Omit<ListChannelsQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<ChannelDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  get(id: string, opts: CallOptions = {}): Promise<ChannelDto> {
    return this.call(api.getChannel({ client: this.client, path: { id }, ...opts }));
  }
  /** Connects an account (201), or reactivates the workspace's channel of that account (200). */
  connect(body: ConnectChannelDto, opts: CallOptions = {}): Promise<ChannelDto> {
    return this.call(api.connectChannel({ client: this.client, body, ...opts }));
  }
  async disconnect(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.disconnectChannel({ client: this.client, path: { id }, ...opts }));
  }
  /** The channel's posting schedule (`timezone: null`, no slots, while it has none). */
  schedule(id: string, opts: CallOptions = {}): Promise<PostingScheduleDto> {
    return this.call(api.getPostingSchedule({ client: this.client, path: { id }, ...opts }));
  }
  /**
   * Replaces the channel's posting schedule: `{ timezone: 'Europe/Berlin', slots: [{ day: 'mon', time: '09:00' }] }`.
   * Posts already scheduled stay where they are; `posts.create({ ..., queue: true })` takes the next free slot.
   */
  setSchedule(id: string, body: PutPostingScheduleDto, opts: CallOptions = {}): Promise<PostingScheduleDto> {
    return this.call(api.putPostingSchedule({ client: this.client, path: { id }, body, ...opts }));
  }
  /** The next free slot instants of the channel's schedule (`{ data: [{ at }] }`, UTC, earliest first). */
  freeSlots(id: string, query: FreeSlotsQuery = {}, opts: CallOptions = {}): Promise<FreeSlotsDto> {
    return this.call(api.listFreeSlots({ client: this.client, path: { id }, query, ...opts }));
  }
}

export class Webhooks extends Resource {
  /** Subscribes an endpoint; the answer carries the signing `secret`, once. */
  create(body: WebhookInputDto, opts: CallOptions = {}): Promise<WebhookWithSecretDto> {
    return this.call(api.createWebhook({ client: this.client, body, ...opts }));
  }
  list(query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<WebhookDto>> {
    return this.call(api.listWebhooks({ client: this.client, query, ...opts }));
  }
  iterate(query: Omit<PageQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<WebhookDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  get(id: string, opts: CallOptions = {}): Promise<WebhookDto> {
    return this.call(api.getWebhook({ client: this.client, path: { id }, ...opts }));
  }
  update(id: string, body: WebhookInputDto, opts: CallOptions = {}): Promise<WebhookDto> {
    return this.call(api.updateWebhook({ client: this.client, path: { id }, body, ...opts }));
  }
  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.deleteWebhook({ client: this.client, path: { id }, ...opts }));
  }
  /** A new signing secret (returned once); the old one keeps signing too for 24 h. */
  rotateSecret(id: string, opts: CallOptions = {}): Promise<WebhookWithSecretDto> {
    return this.call(api.rotateWebhookSecret({ client: this.client, path: { id }, ...opts }));
  }
  /** Queues a `webhook.test` event to this endpoint and returns it. */
  test(id: string, opts: CallOptions = {}): Promise<WebhookTestEventDto> {
    return this.call(api.testWebhook({ client: this.client, path: { id }, ...opts }));
  }
  /**
   * One page of delivery attempts to this endpoint, newest first: each item is one HTTP attempt
   * (`attemptId`) of a delivery (`deliveryId`, what `redeliver` takes).
   */
  deliveries(id: string, query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<WebhookDeliveryDto>> {
    return this.call(api.listWebhookDeliveries({ client: this.client, path: { id }, query, ...opts }));
  }
  iterateDeliveries(
    id: string,
    query: Omit<PageQuery, 'cursor'> = {},
    opts: CallOptions = {},
  ): PageIterator<WebhookDeliveryDto> {
    return new PageIterator((cursor) => this.deliveries(id, { ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  /** Sends a settled delivery once more: give its `deliveryId` from the delivery log (not an `attemptId`). */
  redeliver(id: string, deliveryId: string, opts: CallOptions = {}): Promise<RedeliveryDto> {
    return this.call(api.redeliverWebhookDelivery({ client: this.client, path: { id, deliveryId }, ...opts }));
  }
  /** Sends every event of `[from, to)` (at most 7 days) to this endpoint again. */
  replay(id: string, body: ReplayInputDto, opts: CallOptions = {}): Promise<ReplayResultDto> {
    return this.call(api.replayWebhookEvents({ client: this.client, path: { id }, body, ...opts }));
  }
}

/**
 * Hosted connect links: a page where your customer connects their own accounts to the workspace,
 * then comes back to your `redirectUrl` (each connection also emits `channel.connected`).
 */
export class ConnectLinks extends Resource {
  /** Makes a link; its `url` is in this answer only. */
  create(body: CreateConnectLinkDto, opts: CallOptions = {}): Promise<CreatedConnectLinkDto> {
    return this.call(api.createConnectLink({ client: this.client, body, ...opts }));
  }
  list(query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<ConnectLinkDto>> {
    return this.call(api.listConnectLinks({ client: this.client, query, ...opts }));
  }
  iterate(query: Omit<PageQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<ConnectLinkDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  get(id: string, opts: CallOptions = {}): Promise<ConnectLinkDto> {
    return this.call(api.getConnectLink({ client: this.client, path: { id }, ...opts }));
  }
  /** The page answers 410 from now on; channels already connected stay. */
  async revoke(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.revokeConnectLink({ client: this.client, path: { id }, ...opts }));
  }
}

export class Events extends Resource {
  list(query: ListEventsQuery = {}, opts: CallOptions = {}): Promise<Page<SocialPublishingEvent>> {
    return this.call(api.listEvents({ client: this.client, query, ...opts })) as Promise<Page<unknown>> as Promise<
      Page<SocialPublishingEvent>
    >;
  }
  iterate(query: Omit<ListEventsQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<SocialPublishingEvent> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
}

export class Analytics extends Resource {
  /** A post's latest figures per channel and their totals. */
  post(postId: string, opts: CallOptions = {}): Promise<PostAnalyticsDto> {
    return this.call(api.getPostAnalytics({ client: this.client, path: { postId }, ...opts }));
  }
  /** A channel's daily series (`from`/`to` as YYYY-MM-DD; default the last 30 days). */
  channel(channelId: string, query: ChannelAnalyticsQuery = {}, opts: CallOptions = {}): Promise<ChannelAnalyticsDto> {
    return this.call(api.getChannelAnalytics({ client: this.client, path: { channelId }, query, ...opts }));
  }
  /** Reads a post's figures from the networks now (in the background). */
  refresh(postId: string, opts: CallOptions = {}): Promise<AnalyticsRefreshDto> {
    return this.call(api.refreshPostAnalytics({ client: this.client, path: { postId }, ...opts }));
  }
}

export class ApiKeys extends Resource {
  list(query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<ApiKeyDto>> {
    return this.call(api.listApiKeys({ client: this.client, query, ...opts }));
  }
  iterate(query: Omit<PageQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<ApiKeyDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  /**
   * Creates a key; the answer carries the full `key`, once. `scopes` limits what it may do (default `["*"]`);
   * a key cannot give the new key a scope it lacks (`FORBIDDEN`).
   */
  create(body: CreateApiKeyDto, opts: CallOptions = {}): Promise<CreatedApiKeyDto> {
    return this.call(api.createApiKey({ client: this.client, body, ...opts }));
  }
  /** Revokes a key, effective from the next request. */
  async revoke(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.revokeApiKey({ client: this.client, path: { id }, ...opts }));
  }
}

/** The calling key's workspace and its settings. */
export class Workspace extends Resource {
  get(opts: CallOptions = {}): Promise<WorkspaceDto> {
    return this.call(api.getWorkspace({ client: this.client, ...opts }));
  }
  /** `approvalRequired: true` holds every post that would go out for an approval (scope `posts:approve`). */
  update(body: UpdateWorkspaceDto, opts: CallOptions = {}): Promise<WorkspaceDto> {
    return this.call(api.updateWorkspace({ client: this.client, body, ...opts }));
  }
}

/** Your organization's workspaces (scope `workspaces:manage`); act in one with `forWorkspace(id)`. */
export class Workspaces extends Resource {
  /** A new workspace; `name` and `externalId` are unique in the organization (`CONFLICT`). */
  create(body: CreateWorkspaceDto, opts: CallOptions = {}): Promise<WorkspaceDto> {
    return this.call(api.createWorkspace({ client: this.client, body, ...opts }));
  }
  list(query: ListWorkspacesQuery = {}, opts: CallOptions = {}): Promise<Page<WorkspaceDto>> {
    return this.call(api.listWorkspaces({ client: this.client, query, ...opts }));
  }
  iterate(query: Omit<ListWorkspacesQuery, 'cursor'> = {}, opts: CallOptions = {}): PageIterator<WorkspaceDto> {
    return new PageIterator((cursor) => this.list({ ...query, ...(cursor ? { cursor } : {}) }, opts));
  }
  get(id: string, opts: CallOptions = {}): Promise<WorkspaceDto> {
    return this.call(api.getWorkspaceById({ client: this.client, path: { id }, ...opts }));
  }
  update(id: string, body: ChangeWorkspaceDto, opts: CallOptions = {}): Promise<WorkspaceDto> {
    return this.call(api.updateWorkspaceById({ client: this.client, path: { id }, body, ...opts }));
  }
  /** Erases the workspace and everything in it (in the background); its keys stop at once. */
  async delete(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call(api.deleteWorkspaceById({ client: this.client, path: { id }, ...opts }));
  }
  /** Posts created, targets published and failed (per network), media bytes stored, in `[from, to)`. */
  usage(id: string, query: WorkspaceUsageQuery = {}, opts: CallOptions = {}): Promise<WorkspaceUsageDto> {
    return this.call(api.getWorkspaceUsage({ client: this.client, path: { id }, query, ...opts }));
  }
}
