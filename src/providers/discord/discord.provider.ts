import type { OutboundHeaders, OutboundHttp } from '../../common/http/outbound-http';
import { parseJsonBody } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { altTextProblems, commonDraftProblems } from '../draft-validation.util';
import { FormPart, multipartForm } from '../multipart-form.util';
import { copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { CallKind, clipErrorText, mapHttpFailure, mapThrown } from '../provider-http.util';
import { asArray, asId, asNonEmptyString, asNumber, asObject, asString } from '../provider-json.util';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
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
  PublishResult,
  PublishedRef,
  SocialProvider,
} from '../social-provider.interface';
import { DiscordCredentials, DiscordCredentialsDto, parseDiscordCredentials } from './discord.credentials';
import { DISCORD_LIMITS, DISCORD_MAX_DESCRIPTION, DISCORD_MAX_THREAD_NAME } from './discord.limits';
import { DISCORD_OPTIONS_SCHEMA, type DiscordOptions, discordOptionProblems } from './discord.options';
import { DISCORD_API_VERSION } from './discord.limits';

const DISCORD = 'Discord';
/** Discord's error code for a webhook message to a forum channel without thread_name or thread_id. */
const FORUM_NEEDS_THREAD = 220001;
/** Discord's error code for `thread_name` on a channel that is no forum. */
const THREADS_ONLY_IN_FORUMS = 220003;
/** Message flag SUPPRESS_EMBEDS (1 << 2): no link previews. */
const SUPPRESS_EMBEDS = 1 << 2;
/** Uploads of up to 10 MiB (more on boosted servers): the budget of one execute request. */
const UPLOAD_TIMEOUT_MS = 120_000;

/** Discord's webhook hosts: the API is answered on each, for stable, PTB and Canary clients. */
export const DISCORD_WEBHOOK_ORIGINS = [
  'https://discord.com',
  'https://discordapp.com',
  'https://ptb.discord.com',
  'https://canary.discord.com',
  'https://ptb.discordapp.com',
  'https://canary.discordapp.com',
];

interface DiscordAnswer {
  status: number;
  headers: OutboundHeaders;
  data: unknown;
}

/** Discord's error body: `{message, code, errors?}`; 429: `{message, retry_after, global}`. */
function discordErrorText(data: unknown): string {
  const obj = asObject(data);
  const message = asString(obj?.message) ?? '';
  const code = asNumber(obj?.code);
  return code !== undefined && code !== 0 ? `${message} (code ${code})` : message;
}

/** Maps a refused webhook call to the adapter error contract. */
function discordFailure(answer: DiscordAnswer, kind: CallKind): ProviderError {
  const obj = asObject(answer.data);
  const detail = discordErrorText(answer.data);
  if (answer.status === 429) {
    // retry_after is in seconds (a float); Retry-After rounds it.
    const seconds = asNumber(obj?.retry_after);
    return new TransientProviderError(
      `${DISCORD} rate limit reached: ${clipErrorText(detail)}`,
      429,
      seconds !== undefined ? Math.ceil(seconds) : undefined,
    );
  }
  // 401 Invalid Webhook Token, 404 Unknown Webhook: the webhook was deleted or its token reset.
  if (answer.status === 401 || answer.status === 404) {
    return new CredentialsRevokedError(
      `${DISCORD} no longer knows this webhook (deleted or its token reset): ${clipErrorText(detail)}`,
      answer.status,
    );
  }
  return mapHttpFailure(DISCORD, answer.status, answer.headers, detail, kind);
}

/**
 * Discord through a channel webhook (no bot, no OAuth): the message is sent with `wait=true`, so
 * Discord answers with it, and its attachments (up to 10 files, the upload limit for each)
 * in the same multipart request with their alt text as the attachment's `description`. Forum
 * channels take a message only as a new post: when Discord says so (code 220001), the message is
 * sent again with `thread_name` (its first line) and the channel is remembered as a forum.
 * Webhooks have no idempotency key and cannot list messages: the message id is kept as the publish
 * checkpoint once Discord answers (docs/adr/0036). A target's options set the forum post's title and
 * tags, the name and avatar the message is sent under, and whether links are previewed (docs/adr/0045).
 */
export class DiscordProvider implements SocialProvider {
  readonly id = 'discord' as const;

  constructor(
    private readonly http: OutboundHttp,
    private readonly origins: readonly string[],
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseDiscordCredentials(credentials, this.origins);
    let answer: DiscordAnswer;
    try {
      answer = await this.send('GET', creds.webhookUrl);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      throw new InvalidCredentialsError(`Discord could not be reached to check the webhook: ${err.message}`);
    }
    if (answer.status !== 200) {
      throw new InvalidCredentialsError(
        `Discord refused the webhook (HTTP ${answer.status}): ${discordErrorText(answer.data) || 'no detail'}`,
        answer.status,
      );
    }
    const webhook = asObject(answer.data);
    const channelId = asId(webhook?.channel_id);
    if (!webhook || !channelId || asId(webhook.id) !== creds.webhookId) {
      throw new InvalidCredentialsError('Discord did not answer like a webhook of a channel');
    }
    const guildId = asId(webhook.guild_id) ?? null;
    const name = asNonEmptyString(webhook.name) ?? 'Discord webhook';
    const avatar = asNonEmptyString(webhook.avatar);
    return {
      externalId: `${creds.webhookId}${creds.threadId ? `:${creds.threadId}` : ''}`,
      kind: 'organization',
      // A webhook token reads the webhook, not its channel: the webhook's name and the channel id.
      name,
      handle: `#${creds.threadId ?? channelId}`,
      avatarUrl: avatar ? `https://cdn.discordapp.com/avatars/${creds.webhookId}/${avatar}.png` : null,
      profileUrl: guildId ? `https://discord.com/channels/${guildId}/${creds.threadId ?? channelId}` : null,
      limits: copyLimits(DISCORD_LIMITS),
      credentials: {
        webhookUrl: creds.webhookUrl,
        ...(creds.threadId ? { threadId: creds.threadId } : {}),
        guildId,
        channelId,
        forum: false,
      },
    };
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return [...text].length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    const problems = commonDraftProblems(DISCORD, post.content, post.media, limits);
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The text is ${length} characters long; Discord allows ${limits.maxCharacters}`,
      });
    }
    problems.push(...altTextProblems('Discord', post.media, DISCORD_MAX_DESCRIPTION));
    problems.push(...discordOptionProblems(post.options));
    return problems;
  }

  async publish(input: PublishInput<DiscordOptions>): Promise<PublishResult> {
    const creds = parseDiscordCredentials(input.credentials, this.origins);
    const sent = asId(input.checkpoint?.messageId);
    if (sent) return { platformPostId: sent, url: asString(input.checkpoint?.url) ?? '' };
    if (input.options?.threadName && creds.threadId) {
      throw new ContentRejectedError(
        `The Discord channel posts into thread ${creds.threadId}: options.threadName starts a post only in a forum channel's own webhook`,
      );
    }

    // A post title given: the channel is taken for a forum (Discord refuses thread_name elsewhere).
    let forum = creds.forum || !!input.options?.threadName;
    let answer = await this.execute(creds, input, forum);
    if (!forum && answer.status === 400 && asNumber(asObject(answer.data)?.code) === FORUM_NEEDS_THREAD) {
      forum = true;
      answer = await this.execute(creds, input, forum);
    }
    if (answer.status === 400 && asNumber(asObject(answer.data)?.code) === THREADS_ONLY_IN_FORUMS) {
      throw new ContentRejectedError(
        `Discord starts posts only in forum channels: leave options.threadName out for this channel (${discordErrorText(answer.data)})`,
        400,
      );
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw discordFailure(answer, input.media.length > 0 && answer.status === 413 ? 'media' : 'content');
    }
    const message = asObject(answer.data);
    const messageId = asId(message?.id);
    if (!messageId) throw new TransientProviderError('Discord accepted the message but returned no id', answer.status);
    // In a forum, the message's channel is the post (a thread) it started.
    const where = asId(message?.channel_id) ?? creds.threadId ?? creds.channelId;
    const url = creds.guildId && where ? `https://discord.com/channels/${creds.guildId}/${where}/${messageId}` : '';
    await input.saveCheckpoint({ messageId, url });
    const result: PublishResult = { platformPostId: messageId, url };
    if (forum !== creds.forum) result.credentials = { ...input.credentials, forum };
    return result;
  }

  /** Reactions of the message (a webhook reads its own messages): every reaction counts as a like. */
  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    const creds = parseDiscordCredentials(credentials, this.origins);
    // A forum post is a thread whose id is its starter message's.
    const thread = creds.threadId ?? (creds.forum ? ref.platformPostId : null);
    const query = thread ? `?thread_id=${encodeURIComponent(thread)}` : '';
    const answer = await this.send(
      'GET',
      `${creds.webhookUrl}/messages/${encodeURIComponent(ref.platformPostId)}${query}`,
    );
    if (answer.status !== 200) throw discordFailure(answer, 'content');
    const reactions = asArray(asObject(answer.data)?.reactions) ?? [];
    const likes = reactions.reduce<number>((sum, r) => sum + (asNumber(asObject(r)?.count) ?? 0), 0);
    return {
      metrics: { likes, reposts: null, replies: null, quotes: null, impressions: null, raw: { reactions } },
    };
  }

  /** Executes the webhook with `wait=true`: JSON for text, multipart with payload_json for files. */
  private async execute(
    creds: DiscordCredentials,
    input: PublishInput<DiscordOptions>,
    forum: boolean,
  ): Promise<DiscordAnswer> {
    const options = input.options ?? {};
    const payload: Record<string, unknown> = {
      content: input.content,
      // Mentions in the text stay text: a scheduled post never pings @everyone or a role.
      allowed_mentions: { parse: [] },
    };
    if (options.username) payload.username = options.username;
    if (options.avatarUrl) payload.avatar_url = options.avatarUrl;
    if (options.suppressEmbeds) payload.flags = SUPPRESS_EMBEDS;
    if (forum && !creds.threadId) {
      payload.thread_name = options.threadName ?? threadName(input.content);
      if (options.appliedTags?.length) payload.applied_tags = options.appliedTags;
    }
    const query = `?wait=true${creds.threadId ? `&thread_id=${encodeURIComponent(creds.threadId)}` : ''}`;
    if (input.media.length === 0) return this.send('POST', `${creds.webhookUrl}${query}`, JSON.stringify(payload));
    // The attachment id is a snowflake, a string in Discord's OpenAPI document (files[i] names it).
    payload.attachments = input.media.map((m, i) => ({
      id: String(i),
      filename: m.filename || `file${i}`,
      ...(m.altText ? { description: m.altText } : {}),
    }));
    const parts: FormPart[] = [{ name: 'payload_json', value: JSON.stringify(payload) }];
    input.media.forEach((m, i) => parts.push({ name: `files[${i}]`, media: m, filename: m.filename || `file${i}` }));
    return this.send('POST', `${creds.webhookUrl}${query}`, multipartForm(parts), UPLOAD_TIMEOUT_MS);
  }

  private async send(
    method: 'GET' | 'POST',
    url: string,
    body?: string | ReturnType<typeof multipartForm>,
    timeoutMs?: number,
  ): Promise<DiscordAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let payload: string | ReturnType<typeof multipartForm>['body'] | undefined;
    if (typeof body === 'string') {
      headers['content-type'] = 'application/json';
      payload = body;
    } else if (body) {
      headers['content-type'] = body.contentType;
      headers['content-length'] = String(body.contentLength);
      payload = body.body;
    }
    try {
      const res = await this.http.request({ method, url, headers, body: payload, timeoutMs });
      return { status: res.status, headers: res.headers, data: parseJsonBody(res.body) };
    } catch (err) {
      if (body && typeof body !== 'string') body.body.destroy();
      throw mapThrown(DISCORD, err);
    }
  }
}

/** A forum post's title: the text's first line, clipped to Discord's 100 characters. */
function threadName(content: string): string {
  const line =
    content
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  const chars = [...(line || 'New post')];
  return chars.length > DISCORD_MAX_THREAD_NAME
    ? `${chars.slice(0, DISCORD_MAX_THREAD_NAME - 1).join('')}…`
    : line || 'New post';
}

/** The Discord plugin, registered in provider.list.ts. */
export const discordPlugin = defineProvider({
  id: 'discord',
  apiVersion: {
    pinned: DISCORD_API_VERSION,
    source:
      'Discord API reference, API Versioning (v10 available, v6 deprecated), checked 2026-11-29; no retirement date stated',
  },
  displayName: 'Discord',
  connectKind: 'credentials',
  credentials: DiscordCredentialsDto,
  defaultLimits: DISCORD_LIMITS,
  capabilities: { altText: true, metrics: ['likes'] },
  optionsSchema: DISCORD_OPTIONS_SCHEMA,
  settings: {
    webhookOrigins: setting.list('DISCORD_WEBHOOK_ORIGINS', {
      pattern: /^https?:\/\/[^/,\s]+(,https?:\/\/[^/,\s]+)*$/,
      message: 'must be origins (scheme://host[:port]) separated by commas',
      separator: ',',
      description:
        "for tests only: the origins webhook URLs may point at, instead of Discord's own (discord.com, discordapp.com, ptb. and canary.)",
    }),
  },
  create: ({ http, settings }) => new DiscordProvider(http, settings.webhookOrigins ?? DISCORD_WEBHOOK_ORIGINS),
});
