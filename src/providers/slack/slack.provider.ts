import { setTimeout as sleep } from 'node:timers/promises';
import type { OutboundHttp } from '../../common/http/outbound-http';
import { altTextProblems, commonDraftProblems } from '../draft-validation.util';
import { openExactSize } from '../media-stream.util';
import { copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { ApiResponse, clipErrorText, mapHttpFailure, retryAfterSeconds, sendWithBearer } from '../provider-http.util';
import { asArray, asNonEmptyString, asNumber, asObject, asString, at } from '../provider-json.util';
import { oauthAppSettings, oauthClientSettings } from '../provider-settings';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  MediaRejectedError,
  ProviderError,
  TransientProviderError,
} from '../provider.errors';
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
} from '../social-provider.interface';
import { SlackCredentials, SlackCredentialsDto, parseSlackCredentials } from './slack.credentials';
import { SLACK_LIMITS, SLACK_MAX_ALT_TEXT } from './slack.limits';
import { SLACK_OPTIONS_SCHEMA, type SlackOptions, slackOptionProblems } from './slack.options';
import { revokeAt, storedApiBase, storedToken, withRevocation } from '../token-revocation.util';

const SLACK = 'Slack';
/** Uploads of large videos take time: the budget of one upload request. */
const UPLOAD_TIMEOUT_MS = 300_000;
/** Channels read at connection (pages of 200). */
const MAX_CHANNELS = 1000;

/** Errors saying the token no longer works. */
const REVOKED = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'no_permission',
  'missing_scope',
]);
/** Errors saying the bot can no longer post in the channel. */
const CHANNEL_GONE = new Set(['channel_not_found', 'not_in_channel', 'is_archived']);
/** Slack's own passing failures. */
const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

/** Escapes the three characters Slack's message text reserves, so `<!channel>` or `<@U1>` stay text. */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Slack through a bot token (OAuth v2, `oauth.v2.access`), posting to one conversation chosen at
 * connection. Text posts are chat.postMessage with a section block; media are uploaded with Slack's
 * external-upload flow (files.getUploadURLExternal, the bytes to the upload URL,
 * files.completeUploadExternal sharing them into the channel with the text as their message), whose
 * share's `ts` is the message. Slack has no idempotency key: the `ts` is kept as the publish
 * checkpoint once known, and uploaded file ids too, so a retry never uploads twice (docs/adr/0036).
 */
export class SlackProvider implements SocialProvider {
  readonly id = 'slack' as const;

  constructor(
    private readonly http: OutboundHttp,
    private readonly sharePollMs = 1000,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseSlackCredentials(credentials);
    const targets = await this.connectTargets(creds);
    const chosen = creds.channelId ? targets.find((t) => t.credentials.channelId === creds.channelId) : targets[0];
    if (!chosen) throw new InvalidCredentialsError('The Slack channel is not among those the bot can post to');
    return chosen;
  }

  /** Every channel the bot may post to: public channels (chat:write.public) and private ones it is in. */
  async connectTargets(credentials: unknown): Promise<ConnectedAccount[]> {
    const creds = parseSlackCredentials(credentials);
    const auth = await this.connectCall(creds, 'GET', '/api/auth.test');
    const teamId = asNonEmptyString(auth.team_id) ?? '';
    const workspaceUrl = asNonEmptyString(auth.url) ?? null;
    const team = asNonEmptyString(auth.team) ?? 'Slack';
    const channels: Array<Record<string, unknown>> = [];
    let cursor = '';
    do {
      const page = await this.connectCall(
        creds,
        'GET',
        `/api/conversations.list?types=public_channel,private_channel&exclude_archived=true&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const c of asArray(page.channels) ?? []) {
        const channel = asObject(c);
        if (channel && (channel.is_private !== true || channel.is_member === true)) channels.push(channel);
      }
      cursor = asString(at(page, 'response_metadata', 'next_cursor')) ?? '';
    } while (cursor && channels.length < MAX_CHANNELS);
    if (channels.length === 0)
      throw new InvalidCredentialsError('The Slack bot can post to no channel of this workspace');
    return channels.map((c) => {
      const id = String(c.id);
      const name = asNonEmptyString(c.name) ?? id;
      return {
        externalId: `${teamId}:${id}`,
        kind: 'organization' as const,
        name: `#${name} (${team})`,
        handle: `#${name}`,
        avatarUrl: null,
        profileUrl: workspaceUrl ? `${workspaceUrl.replace(/\/?$/, '/')}archives/${id}` : null,
        limits: copyLimits(SLACK_LIMITS),
        credentials: {
          accessToken: creds.accessToken,
          refreshToken: null,
          expiresAt: null,
          apiBaseUrl: creds.apiBaseUrl,
          teamId,
          channelId: id,
          ...(workspaceUrl ? { workspaceUrl } : {}),
        },
      };
    });
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    // Counted as sent: escaped (`&` is `&amp;` there), which is what Slack holds to the section block's limit.
    return [...escapeSlackText(text)].length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(SLACK, post.content, post.media, limits);
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; Slack allows ${limits.maxCharacters} (counted as sent, with & < > escaped)`,
      });
    }
    problems.push(...altTextProblems('Slack', post.media, SLACK_MAX_ALT_TEXT));
    problems.push(...slackOptionProblems(post.options, post.media.length));
    return problems;
  }

  async publish(input: PublishInput<SlackOptions>): Promise<PublishResult> {
    const creds = parseSlackCredentials(input.credentials);
    if (!creds.channelId) throw new ContentRejectedError('The Slack channel has no conversation chosen; reconnect it');
    const sentTs = asString(input.checkpoint?.ts);
    if (sentTs) return this.result(creds, sentTs);
    const options = input.options ?? {};
    const thread = options.threadTs ? { thread_ts: options.threadTs } : {};

    if (input.media.length === 0) {
      const data = await this.call(
        creds,
        'POST',
        '/api/chat.postMessage',
        {
          channel: creds.channelId,
          text: escapeSlackText(input.content),
          blocks: [{ type: 'section', text: { type: 'mrkdwn', text: escapeSlackText(input.content) } }],
          unfurl_links: options.unfurlLinks ?? true,
          unfurl_media: options.unfurlMedia ?? true,
          ...thread,
          ...(options.threadTs && options.replyBroadcast ? { reply_broadcast: true } : {}),
        },
        'content',
      );
      const ts = asString(data.ts);
      if (!ts) throw new TransientProviderError('Slack accepted the message but returned no ts');
      await input.saveCheckpoint({ ts });
      return this.result(creds, ts);
    }

    // Files uploaded by an earlier attempt are reused, never uploaded twice.
    const uploaded = (asArray(input.checkpoint?.fileIds) ?? []).filter((v): v is string => typeof v === 'string');
    if (uploaded.length !== input.media.length) {
      uploaded.length = 0;
      for (const media of input.media) uploaded.push(await this.upload(creds, media));
      await input.saveCheckpoint({ fileIds: uploaded });
    }
    const completed = await this.call(
      creds,
      'POST',
      '/api/files.completeUploadExternal',
      {
        files: uploaded.map((id, i) => ({ id, title: input.media[i].filename })),
        channel_id: creds.channelId,
        ...thread,
        ...(input.content.trim() !== '' ? { initial_comment: escapeSlackText(input.content) } : {}),
      },
      'media',
    );
    const ts = shareTs(asArray(completed.files)?.[0], creds.channelId) ?? (await this.waitForShare(creds, uploaded[0]));
    await input.saveCheckpoint({ fileIds: uploaded, ts });
    return this.result(creds, ts);
  }

  /** Reactions of the message (likes) and its thread's replies (reactions.get, scope reactions:read). */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = parseSlackCredentials(credentials);
    const data = await this.call(
      creds,
      'GET',
      `/api/reactions.get?channel=${encodeURIComponent(creds.channelId ?? '')}&timestamp=${encodeURIComponent(ref.platformPostId)}&full=true`,
      undefined,
      'content',
    );
    const message = asObject(data.message) ?? {};
    const reactions = asArray(message.reactions) ?? [];
    const likes = reactions.reduce<number>((sum, r) => sum + (asNumber(asObject(r)?.count) ?? 0), 0);
    const replies = asNumber(message.reply_count) ?? 0;
    return {
      metrics: {
        likes,
        reposts: null,
        replies,
        quotes: null,
        impressions: null,
        raw: { reactions, reply_count: replies },
      },
    };
  }

  /** getUploadURLExternal (with the alt text), then the bytes to the upload URL; returns the file id. */
  private async upload(creds: SlackCredentials, media: PublishMedia): Promise<string> {
    const query = new URLSearchParams({ filename: media.filename || 'upload', length: String(media.size) });
    if (media.altText) query.set('alt_txt', media.altText);
    const data = await this.call(
      creds,
      'GET',
      `/api/files.getUploadURLExternal?${query.toString()}`,
      undefined,
      'media',
    );
    const uploadUrl = asNonEmptyString(data.upload_url);
    const fileId = asNonEmptyString(data.file_id);
    if (!uploadUrl || !fileId) throw new TransientProviderError('Slack returned no upload URL');
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: uploadUrl,
        headers: { 'content-type': media.mimeType, 'content-length': String(media.size) },
        body: openExactSize(media),
        timeoutMs: UPLOAD_TIMEOUT_MS,
      });
    } catch (err) {
      throw err instanceof ProviderError
        ? err
        : new TransientProviderError(`The upload to Slack failed: ${(err as Error).message}`);
    }
    if (res.status !== 200) throw mapHttpFailure(SLACK, res.status, res.headers, res.body.toString('utf8'), 'media');
    return fileId;
  }

  /** The share of a file completes in the background: files.info until it lists the message. */
  private async waitForShare(creds: SlackCredentials, fileId: string): Promise<string> {
    for (let i = 0; i < 5; i++) {
      await sleep(this.sharePollMs);
      const data = await this.call(
        creds,
        'GET',
        `/api/files.info?file=${encodeURIComponent(fileId)}`,
        undefined,
        'media',
      );
      const ts = shareTs(data.file, creds.channelId ?? '');
      if (ts) return ts;
    }
    throw new TransientProviderError('Slack has not shared the files into the channel yet; trying again later');
  }

  private async result(creds: SlackCredentials, ts: string): Promise<PublishResult> {
    const base = creds.workspaceUrl?.replace(/\/?$/, '/');
    return {
      platformPostId: ts,
      url: base ? `${base}archives/${creds.channelId}/p${ts.replace('.', '')}` : '',
    };
  }

  /** A Web API call; `ok: false` and HTTP failures become typed provider errors. */
  private async call(
    creds: SlackCredentials,
    method: 'GET' | 'POST',
    path: string,
    json: Record<string, unknown> | undefined,
    kind: 'content' | 'media',
  ): Promise<Record<string, unknown>> {
    const res = await sendWithBearer(this.http, SLACK, creds.apiBaseUrl, creds.accessToken, {
      method,
      path,
      ...(json ? { json, headers: { 'content-type': 'application/json; charset=utf-8' } } : {}),
    });
    const data = asObject(res.data);
    if (res.status === 200 && data?.ok === true) return data;
    throw slackFailure(res, kind);
  }

  /** A connect-time call: refusals become InvalidCredentialsError. */
  private async connectCall(creds: SlackCredentials, method: 'GET', path: string): Promise<Record<string, unknown>> {
    try {
      return await this.call(creds, method, path, undefined, 'content');
    } catch (err) {
      if (err instanceof ProviderError && !(err instanceof InvalidCredentialsError)) {
        throw new InvalidCredentialsError(`Slack refused the connection: ${err.message}`, err.status);
      }
      throw err;
    }
  }
}

/** The `ts` of a file's share in `channelId` (`shares.public` or `shares.private`), if listed. */
function shareTs(file: unknown, channelId: string): string | undefined {
  for (const kind of ['public', 'private']) {
    const ts = asString(asObject(asArray(at(file, 'shares', kind, channelId))?.[0])?.ts);
    if (ts) return ts;
  }
  return undefined;
}

/** Maps a refused Web API call (HTTP status, or `ok: false` with its `error`) to the adapter contract. */
function slackFailure(res: ApiResponse, kind: 'content' | 'media'): ProviderError {
  const error = asString(asObject(res.data)?.error) ?? '';
  const detail = error ? `: ${clipErrorText(error)}` : '';
  if (res.status === 429 || error === 'ratelimited') {
    return new TransientProviderError(`${SLACK} rate limit reached${detail}`, 429, retryAfterSeconds(res.headers));
  }
  if (res.status !== 200) return mapHttpFailure(SLACK, res.status, res.headers, error, kind);
  if (REVOKED.has(error)) return new CredentialsRevokedError(`${SLACK} no longer accepts the bot token${detail}`, 401);
  if (CHANNEL_GONE.has(error)) {
    return new CredentialsRevokedError(`${SLACK} no longer lets the bot post in this channel${detail}`, 403);
  }
  if (TRANSIENT.has(error)) return new TransientProviderError(`${SLACK} is unavailable${detail}`, 503);
  return kind === 'media'
    ? new MediaRejectedError(`${SLACK} rejected the files${detail}`, 400)
    : new ContentRejectedError(`${SLACK} rejected the message${detail}`, 400);
}

/** The Slack plugin, registered in provider.list.ts. */
export const slackPlugin = defineProvider({
  id: 'slack',
  apiVersion: {
    pinned: 'Web API (unversioned)',
    source: 'Slack Web API method documentation, checked 2026-11-29: methods are not versioned',
  },
  displayName: 'Slack',
  connectKind: 'oauth',
  credentials: SlackCredentialsDto,
  defaultLimits: SLACK_LIMITS,
  optionsSchema: SLACK_OPTIONS_SCHEMA,
  capabilities: { altText: true, metrics: ['likes', 'replies'] },
  oauth: {
    defaultHosts: { auth: 'https://slack.com', api: 'https://slack.com' },
    authorizeUrl: (hosts) => `${hosts.auth}/oauth/v2/authorize`,
    tokenUrl: (hosts) => `${hosts.api}/api/oauth.v2.access`,
    // Bot scopes: post (also in public channels the bot has not joined), list channels, upload, read reactions.
    scopes: ['chat:write', 'chat:write.public', 'channels:read', 'groups:read', 'files:write', 'reactions:read'],
    scopeSeparator: ',',
    clientAuthentication: 'body',
  },
  settings: oauthAppSettings('SLACK', {
    clientId:
      'Slack app with a bot user (redirect URL {PUBLIC_BASE_URL}/api/oauth/slack/callback); Slack is listed disabled without both',
    authBaseUrl: 'override of https://slack.com (the install page)',
    apiBaseUrl: 'override of https://slack.com (Web API and oauth.v2.access)',
  }),
  // Revocation: auth.revoke with the bot token itself (Slack deactivates the bot user; the app stays installed).
  create: ({ http, settings }) =>
    withRevocation(new SlackProvider(http), async (credentials) => {
      const token = storedToken(credentials, 'accessToken');
      if (!token) return;
      const url = `${storedApiBase(credentials, oauthClientSettings(settings).apiBaseUrl ?? 'https://slack.com')}/api/auth.revoke`;
      await revokeAt(
        http,
        'Slack',
        { method: 'POST', url, bearer: token },
        (status, data) => status === 200 && (data as { ok?: unknown } | undefined)?.ok === true,
      );
    }),
});
