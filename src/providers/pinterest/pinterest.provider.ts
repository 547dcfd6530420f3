import type { OutboundHttp } from '../../common/http/outbound-http';
import { altTextProblems, commonDraftProblems } from '../draft-validation.util';
import { exactSizeChunks } from '../media-stream.util';
import { comparableText, copyLimits } from '../plugin-helpers.util';
import { multipartFileBody } from '../mastodon/multipart-body';
import { mapHttpFailure, mapThrown } from '../provider-http.util';
import { asArray, asNumber, asObject, asString } from '../provider-json.util';
import { setting } from '../../config/settings';
import { defineProvider } from '../provider-plugin';
import { oauthAppSettings } from '../provider-settings';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  MediaRejectedError,
  ProcessingPendingError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
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
import { PINTEREST_NAME, PinterestApi, mapPinterestFailure, pinterestErrorText } from './pinterest-api.client';
import { PINTEREST_ID, PinterestCredentialsDto, parsePinterestCredentials } from './pinterest.credentials';
import { PINTEREST_OPTIONS_SCHEMA, type PinterestOptions } from './pinterest.options';
import {
  PINTEREST_ANALYTICS_DAYS,
  PINTEREST_LIMITS,
  PINTEREST_MAX_ALT_TEXT,
  PINTEREST_MAX_BOARDS,
} from './pinterest.limits';

/** How far before the publication's start the lookup of a retry reaches. */
const LOOKUP_SLACK_MS = 60_000;
/** Pins of the board read by the lookup (newest first). */
const LOOKUP_COUNT = 25;
/** The pin analytics read, mapped to our figures (Pinterest has no reposts: saves are the nearest). */
const PIN_METRICS: Array<[string, keyof Omit<Metrics, 'raw'>]> = [
  ['IMPRESSION', 'impressions'],
  ['TOTAL_REACTIONS', 'likes'],
  ['SAVE', 'reposts'],
  ['TOTAL_COMMENTS', 'replies'],
];
/** When the publisher looks again at a video Pinterest is still processing, in ms, by default (the worker is released meanwhile). */
const VIDEO_POLL_MS = 3000;
/** Figures read besides those, kept in `raw`. */
const OTHER_METRICS = ['PIN_CLICK', 'OUTBOUND_CLICK'];

interface Board {
  id: string;
  name: string;
  privacy: string;
}

const pinUrl = (id: string) => `https://www.pinterest.com/pin/${id}/`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Pinterest's API v5 with a user's OAuth 2.0 token. One authorization reaches the boards of the
 * account; each chosen board is its own channel, and its pins go to that board (docs/adr/0038).
 * A pin is one image (sent as base64) or one video (through the media upload) with the post's text as
 * its description; a target's options choose another board, a section, a title, a link and a
 * dominant color (docs/adr/0045).
 */
export class PinterestProvider implements SocialProvider {
  readonly id = 'pinterest';

  constructor(
    private readonly http: OutboundHttp,
    /** Pause before the next read of a video Pinterest is processing (PINTEREST_VIDEO_POLL_MS). */
    private readonly videoPollMs: number = VIDEO_POLL_MS,
  ) {}

  /** The board of the credentials (or the account's first board), after checking the token with the account. */
  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const { user, boards } = await this.read(credentials);
    const wanted = parsePinterestCredentials(credentials).boardId;
    const board = wanted ? boards.find((b) => b.id === wanted) : boards[0];
    if (!board) {
      throw new InvalidCredentialsError(
        wanted
          ? `The Pinterest board ${wanted} is not among the account's boards`
          : 'The Pinterest account has no board: create one on Pinterest, then connect again',
      );
    }
    return this.account(credentials, user, board);
  }

  /** Every board the account may pin to, for the caller to choose from when there are several. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const { user, boards } = await this.read(credentials);
    if (boards.length === 0) {
      throw new InvalidCredentialsError(
        'The Pinterest account has no board: create one on Pinterest, then connect again',
      );
    }
    return boards.map((board) => this.account(credentials, user, board));
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return [...text].length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(PINTEREST_NAME, post.content, post.media, limits);
    if (post.media.length === 0) {
      problems.push({ field: 'mediaIds', message: 'Pinterest publishes pins with an image or a video: attach one' });
    }
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text has ${length} characters; a Pinterest pin description allows ${limits.maxCharacters}`,
      });
    }
    problems.push(...altTextProblems('Pinterest', post.media, PINTEREST_MAX_ALT_TEXT));
    return problems;
  }

  /**
   * Creates the pin on the channel's board. Pinterest has no idempotency key: a retry first looks
   * for a pin with this description created on the board since the publication started.
   */
  async publish(input: PublishInput<PinterestOptions>): Promise<PublishResult> {
    const creds = parsePinterestCredentials(input.credentials);
    const options = input.options ?? {};
    // The target's board when it names one, else the channel's (every channel has one from its connection).
    const boardId = options.boardId ?? creds.boardId;
    if (!boardId) throw new CredentialsRevokedError('The Pinterest channel has no board: connect it again');
    const api = new PinterestApi(this.http, creds);
    if ((input.attempt ?? 1) > 1) {
      const found = await this.findRecent(api, boardId, input);
      if (found) return found;
    }
    const [item] = input.media;
    if (!item) throw new MediaRejectedError('Pinterest publishes pins with an image or a video: the post has none');
    const body: Record<string, unknown> = {
      board_id: boardId,
      description: input.content,
      media_source: item.mimeType.startsWith('video/')
        ? await this.videoSource(api, item, input)
        : await this.imageSource(item),
    };
    if (options.boardSectionId) body.board_section_id = options.boardSectionId;
    if (options.title) body.title = options.title;
    if (options.link) body.link = options.link;
    if (options.dominantColor) body.dominant_color = options.dominantColor;
    if (item.altText) body.alt_text = item.altText;
    const res = await api.send({ method: 'POST', path: '/pins', json: body, timeoutMs: 120_000 });
    if (res.status === 404 && options.boardId) {
      throw new ContentRejectedError(
        `Pinterest refused the pin: board ${options.boardId} (options.boardId) is not a board of this account (${pinterestErrorText(res.data) || 'HTTP 404'})`,
        404,
      );
    }
    if (res.status < 200 || res.status >= 300) throw mapPinterestFailure(res, 'content');
    const id = asString(asObject(res.data)?.id);
    if (!id) throw new TransientProviderError('Pinterest accepted the pin but returned no id', res.status);
    return { platformPostId: id, url: pinUrl(id) };
  }

  /** Pin analytics over the last 90 days (lifetime figures when Pinterest has them). */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const api = new PinterestApi(this.http, parsePinterestCredentials(credentials));
    const now = Date.now();
    const types = [...PIN_METRICS.map(([type]) => type), ...OTHER_METRICS];
    const query = new URLSearchParams({
      start_date: day(now - (PINTEREST_ANALYTICS_DAYS - 1) * 86_400_000),
      end_date: day(now),
      metric_types: types.join(','),
      app_types: 'ALL',
      split_field: 'NO_SPLIT',
    });
    const res = await api.call(
      { method: 'GET', path: `/pins/${encodeURIComponent(ref.platformPostId)}/analytics?${query.toString()}` },
      'content',
    );
    const all = asObject(asObject(res.data)?.all);
    const figures = asObject(all?.lifetime_metrics) ?? asObject(all?.summary_metrics) ?? {};
    const metrics: Metrics = { likes: null, reposts: null, replies: null, quotes: null, impressions: null, raw: {} };
    for (const [type, figure] of PIN_METRICS) metrics[figure] = asNumber(figures[type]) ?? null;
    for (const type of types) metrics.raw[type] = asNumber(figures[type]) ?? null;
    return { metrics };
  }

  /** The image as base64 (JPEG or PNG), so Pinterest needs no access to this server. */
  private async imageSource(image: PublishMedia): Promise<Record<string, string>> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of exactSizeChunks(image)) chunks.push(chunk);
    } catch (err) {
      throw mapThrown(PINTEREST_NAME, err);
    }
    return {
      source_type: 'image_base64',
      content_type: image.mimeType,
      data: Buffer.concat(chunks).toString('base64'),
    };
  }

  /**
   * A video goes through Pinterest's media upload: register it, send the bytes to the upload URL
   * with the form fields Pinterest gave, then read its processing status. The media id is saved as
   * the publish checkpoint once uploaded; while Pinterest processes the video the attempt ends with
   * ProcessingPendingError (the worker is released) and the next poll resumes from the checkpoint
   * (status read, then the pin) instead of uploading again. The pin's cover is the video's first
   * frame (`cover_image_key_frame_time`).
   */
  private async videoSource(
    api: PinterestApi,
    video: PublishMedia,
    input: PublishInput,
  ): Promise<Record<string, unknown>> {
    let mediaId = typeof input.checkpoint?.videoMediaId === 'string' ? input.checkpoint.videoMediaId : null;
    if (!mediaId) {
      const registered = await api.call({ method: 'POST', path: '/media', json: { media_type: 'video' } }, 'media');
      const data = asObject(registered.data);
      const id = asString(data?.media_id);
      const uploadUrl = asString(data?.upload_url);
      const parameters = asObject(data?.upload_parameters) ?? {};
      if (!id || !uploadUrl) {
        throw new TransientProviderError(
          'Pinterest registered the video but returned no upload URL',
          registered.status,
        );
      }
      const fields = Object.fromEntries(
        Object.entries(parameters).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const form = multipartFileBody('file', video, fields);
      let res;
      try {
        // The upload URL is Pinterest's storage (S3), authorized by the signed fields: no bearer token.
        res = await this.http.request({
          method: 'POST',
          url: uploadUrl,
          headers: { 'content-type': form.contentType, 'content-length': String(form.contentLength) },
          body: form.body,
          timeoutMs: 600_000,
        });
      } catch (err) {
        throw mapThrown(PINTEREST_NAME, err);
      }
      if (res.status < 200 || res.status >= 300) {
        throw mapHttpFailure(PINTEREST_NAME, res.status, res.headers, '', 'media');
      }
      mediaId = id;
      await input.saveCheckpoint({ videoMediaId: mediaId });
    }
    const res = await api.call({ method: 'GET', path: `/media/${encodeURIComponent(mediaId)}` }, 'media');
    const status = asString(asObject(res.data)?.status);
    if (status === 'failed') {
      throw new VideoProcessingFailedError(`Pinterest could not process the video (media ${mediaId})`);
    }
    if (status !== 'succeeded') {
      throw new ProcessingPendingError(
        `Pinterest is processing the video (media ${mediaId}, ${status ?? 'no status'})`,
        this.videoPollMs,
      );
    }
    return { source_type: 'video_id', media_id: mediaId, cover_image_key_frame_time: 0 };
  }

  /** The board's pin with this description created since the publication started, if any. */
  private async findRecent(api: PinterestApi, boardId: string, input: PublishInput): Promise<PublishResult | null> {
    const res = await api.call(
      { method: 'GET', path: `/boards/${encodeURIComponent(boardId)}/pins?page_size=${LOOKUP_COUNT}` },
      'content',
    );
    const since = input.createdAt.getTime() - LOOKUP_SLACK_MS;
    const wanted = comparableText(input.content);
    for (const item of asArray(asObject(res.data)?.items) ?? []) {
      const pin = asObject(item);
      const id = asString(pin?.id);
      const createdAt = Date.parse(asString(pin?.created_at) ?? '');
      if (id && createdAt >= since && comparableText(asString(pin?.description) ?? '') === wanted) {
        return { platformPostId: id, url: pinUrl(id) };
      }
    }
    return null;
  }

  /** The account (user_account) and its boards, first page order, at most PINTEREST_MAX_BOARDS. */
  private async read(credentials: unknown): Promise<{ user: Record<string, unknown>; boards: Board[] }> {
    const api = new PinterestApi(this.http, parsePinterestCredentials(credentials));
    let res;
    try {
      res = await api.send({ method: 'GET', path: '/user_account' });
    } catch (err) {
      throw new InvalidCredentialsError(`Pinterest could not be reached: ${(err as Error).message}`);
    }
    if (res.status === 429 || res.status >= 500) throw mapPinterestFailure(res, 'content');
    if (res.status !== 200) {
      throw new InvalidCredentialsError(
        `Pinterest refused the access token: ${pinterestErrorText(res.data) || `HTTP ${res.status}`}`,
      );
    }
    const user = asObject(res.data) ?? {};
    const boards: Board[] = [];
    let bookmark: string | undefined;
    do {
      const query = new URLSearchParams({ page_size: '100' });
      if (bookmark) query.set('bookmark', bookmark);
      const page = await api.call({ method: 'GET', path: `/boards?${query.toString()}` }, 'content');
      for (const item of asArray(asObject(page.data)?.items) ?? []) {
        const board = asObject(item);
        const id = asString(board?.id);
        if (!id || !PINTEREST_ID.test(id) || boards.length >= PINTEREST_MAX_BOARDS) continue;
        boards.push({
          id,
          name: asString(board?.name) || `Board ${id}`,
          privacy: asString(board?.privacy) ?? 'PUBLIC',
        });
      }
      bookmark = asString(asObject(page.data)?.bookmark) || undefined;
    } while (bookmark && boards.length < PINTEREST_MAX_BOARDS);
    return { user, boards };
  }

  private account(raw: unknown, user: Record<string, unknown>, board: Board): ConnectedAccount {
    const creds = parsePinterestCredentials(raw);
    const stored = asObject(raw) ?? {};
    const username = asString(user.username) ?? null;
    return {
      externalId: board.id,
      kind: 'personal',
      name: board.name,
      handle: username ?? board.name,
      avatarUrl: asString(user.profile_image) ?? null,
      profileUrl: username ? `https://www.pinterest.com/${username}/` : null,
      limits: copyLimits(PINTEREST_LIMITS),
      credentials: {
        accessToken: creds.accessToken,
        refreshToken: stored.refreshToken ?? null,
        expiresAt: stored.expiresAt ?? null,
        scope: stored.scope ?? null,
        apiBaseUrl: creds.apiBaseUrl,
        boardId: board.id,
        ...(username && /^[A-Za-z0-9_.-]{1,64}$/.test(username) ? { username } : {}),
      },
    };
  }
}

/** Scopes asked by default: the account, its boards, and pins to read (lookup, analytics) and write. */
const PINTEREST_SCOPES = ['user_accounts:read', 'boards:read', 'pins:read', 'pins:write'];

/** The Pinterest plugin: OAuth 2.0 authorization code, one channel per board; registered in provider.list.ts. */
export const pinterestPlugin = defineProvider({
  id: 'pinterest',
  apiVersion: {
    pinned: 'v5',
    source: 'Pinterest API v5 (pinterest/api-description), checked 2026-11-29; no retirement date stated',
  },
  displayName: 'Pinterest',
  connectKind: 'oauth',
  credentials: PinterestCredentialsDto,
  defaultLimits: PINTEREST_LIMITS,
  capabilities: { altText: true },
  optionsSchema: PINTEREST_OPTIONS_SCHEMA,
  oauth: {
    defaultHosts: { auth: 'https://www.pinterest.com', api: 'https://api.pinterest.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/`,
    tokenUrl: (hosts) => `${hosts.api}/v5/oauth/token`,
    scopes: PINTEREST_SCOPES,
    // Pinterest documents comma-separated scopes in the authorization URL.
    scopeSeparator: ',',
    clientAuthentication: 'basic',
  },
  settings: {
    ...oauthAppSettings('PINTEREST', {
      clientId:
        'Pinterest app (redirect URI {PUBLIC_BASE_URL}/api/oauth/pinterest/callback); Pinterest is listed disabled without both',
      authBaseUrl: 'override of https://www.pinterest.com (consent page)',
      apiBaseUrl: 'override of https://api.pinterest.com (API v5 and token endpoint)',
    }),
    videoPollMs: setting.int('PINTEREST_VIDEO_POLL_MS', {
      default: VIDEO_POLL_MS,
      min: 10,
      description:
        'interval between two reads of a video Pinterest is processing (GET /v5/media/{id}), each a delayed job that holds no worker; the whole wait is bounded by VIDEO_PROCESSING_MAX_WAIT_SECONDS',
    }),
  },
  create: ({ http, settings }) => new PinterestProvider(http, settings.videoPollMs),
});
