import type { OutboundHttp } from '../../common/http/outbound-http';
import { setting } from '../../config/settings';
import { commonDraftProblems } from '../draft-validation.util';
import { FormPart, multipartForm } from '../multipart-form.util';
import { copyLimits } from '../plugin-helpers.util';
import { defineProvider } from '../provider-plugin';
import { asArray, asId, asNonEmptyString, asObject } from '../provider-json.util';
import { InvalidCredentialsError, ProviderError, TransientProviderError } from '../provider.errors';
import { TELEGRAM_OPTIONS_SCHEMA, type TelegramOptions } from './telegram.options';
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
import { TELEGRAM, TELEGRAM_DEFAULT_API_BASE_URL, TelegramApi, telegramFailure } from './telegram-api.client';
import { TelegramCredentials, TelegramCredentialsDto, parseTelegramCredentials } from './telegram.credentials';
import {
  TELEGRAM_LIMITS,
  TELEGRAM_MAX_CAPTION,
  TELEGRAM_MAX_PHOTO_RATIO,
  TELEGRAM_MAX_PHOTO_SIDES,
} from './telegram.limits';

/** Bot uploads of up to 50 MB take time; the budget of one media request. */
const MEDIA_TIMEOUT_MS = 120_000;

const MiB = 1024 * 1024;

/** Whether Telegram sends this item as a video (sendVideo, `type: video` in a group); else a photo. */
const isVideo = (media: { mimeType: string }) => media.mimeType.toLowerCase().startsWith('video/');

/**
 * Telegram through the Bot API, as a bot that posts to one chat (a channel, a group or a private chat).
 * Text is sent as plain text, without `parse_mode`: nothing the user wrote is read as markup (a `<` or
 * `*` stays a character), and Telegram itself marks URLs, @mentions and #hashtags as entities.
 * One photo or video goes with sendPhoto / sendVideo, several as an album (sendMediaGroup), the text as
 * the caption. The Bot API has no idempotency key and lets a bot read no chat history: the message id
 * is kept as the publish checkpoint once sent, so a retry after that returns it (docs/adr/0036).
 */
export class TelegramProvider implements SocialProvider {
  readonly id = 'telegram' as const;

  constructor(
    private readonly http: OutboundHttp,
    private readonly baseUrl: string,
  ) {}

  async connect(credentials: unknown): Promise<ConnectedAccount> {
    const creds = parseTelegramCredentials(credentials);
    const api = new TelegramApi(this.http, this.baseUrl, creds.botToken);

    const me = await this.connectCall(api, 'getMe', {});
    if (!me.ok) {
      throw new InvalidCredentialsError(
        me.status === 401 || me.status === 404
          ? 'Telegram refused the bot token'
          : `Telegram could not check the bot (HTTP ${me.status}): ${me.description}`,
        me.status,
      );
    }
    const bot = asObject(me.result);
    const botId = asId(bot?.id);
    if (!botId) throw new InvalidCredentialsError('Telegram did not answer getMe like the Bot API');

    const chatAnswer = await this.connectCall(api, 'getChat', { chat_id: creds.chatId });
    if (!chatAnswer.ok) {
      throw new InvalidCredentialsError(
        `Telegram cannot find chat ${creds.chatId} for this bot (${chatAnswer.description || `HTTP ${chatAnswer.status}`}); add the bot to the chat first`,
        chatAnswer.status,
      );
    }
    const chat = asObject(chatAnswer.result);
    const chatId = asId(chat?.id);
    const type = asNonEmptyString(chat?.type) ?? 'private';
    if (!chat || !chatId) throw new InvalidCredentialsError('Telegram did not answer getChat like the Bot API');

    if (type !== 'private') {
      const member = await this.connectCall(api, 'getChatMember', { chat_id: chatId, user_id: Number(botId) });
      if (!member.ok) {
        throw new InvalidCredentialsError(
          `Telegram did not say whether the bot is in the chat: ${member.description || `HTTP ${member.status}`}`,
          member.status,
        );
      }
      const problem = cannotPost(type, asObject(member.result));
      if (problem) throw new InvalidCredentialsError(problem);
    }

    const username = asNonEmptyString(chat.username) ?? null;
    const person = [asNonEmptyString(chat.first_name), asNonEmptyString(chat.last_name)].filter(Boolean).join(' ');
    const name = asNonEmptyString(chat.title) ?? person;
    return {
      externalId: `${botId}:${chatId}`,
      kind: type === 'private' ? 'personal' : 'organization',
      name: name || chatId,
      handle: username ? `@${username}` : chatId,
      avatarUrl: null,
      profileUrl: username ? `https://t.me/${username}` : null,
      limits: copyLimits(TELEGRAM_LIMITS),
      credentials: { botToken: creds.botToken, chatId, chatUsername: username, chatType: type },
    };
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return text.length;
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    // Sizes are checked here by kind: photos up to maxImageBytes, videos up to 50 MB.
    const problems = commonDraftProblems(TELEGRAM, post.content, post.media, {
      ...limits,
      maxImageBytes: Number.MAX_SAFE_INTEGER,
    });
    // Videos are checked against limits.video by the shared validation; photos here.
    for (const item of post.media) {
      if (!isVideo(item) && item.size > limits.maxImageBytes) {
        problems.push({
          field: 'mediaIds',
          message: `Media ${item.id} is ${(item.size / MiB).toFixed(1)} MiB; Telegram takes photos of at most ${limits.maxImageBytes / MiB} MiB from bots`,
        });
      }
      // sendPhoto: width and height at most 10000 in total, one at most 20 times the other.
      if (!isVideo(item) && item.width && item.height) {
        const { width, height } = item;
        if (width + height > TELEGRAM_MAX_PHOTO_SIDES) {
          problems.push({
            field: 'mediaIds',
            message: `Media ${item.id} is ${width} x ${height}; Telegram takes photos whose width and height add up to ${TELEGRAM_MAX_PHOTO_SIDES} at most`,
          });
        } else if (Math.max(width, height) / Math.min(width, height) > TELEGRAM_MAX_PHOTO_RATIO) {
          problems.push({
            field: 'mediaIds',
            message: `Media ${item.id} is ${width} x ${height}; Telegram takes photos at most ${TELEGRAM_MAX_PHOTO_RATIO} times as long as wide`,
          });
        }
      }
    }
    const length = this.countCharacters(post.content);
    const max = post.media.length > 0 ? Math.min(TELEGRAM_MAX_CAPTION, limits.maxCharacters) : limits.maxCharacters;
    if (length > max) {
      problems.push({
        field: 'content',
        message:
          post.media.length > 0
            ? `The text is ${length} characters long; Telegram allows ${max} in the caption of a photo or video`
            : `The text is ${length} characters long; Telegram allows ${max}`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput<TelegramOptions>): Promise<PublishResult> {
    const creds = parseTelegramCredentials(input.credentials);
    const sent = asId(input.checkpoint?.messageId);
    if (sent) return { platformPostId: sent, url: messageUrl(creds, sent) };

    const api = new TelegramApi(this.http, this.baseUrl, creds.botToken);
    const reply = input.replyTo
      ? { message_id: Number(input.replyTo.parent.platformPostId), allow_sending_without_reply: true }
      : undefined;
    const common = sendParameters(input.options ?? {}, reply);
    let messageId: string | undefined;
    if (input.media.length === 0) {
      const message = await api.call(
        'sendMessage',
        {
          chat_id: creds.chatId,
          text: input.content,
          ...common,
          ...(input.options?.disableLinkPreview ? { link_preview_options: { is_disabled: true } } : {}),
        },
        'content',
      );
      messageId = asId(asObject(message)?.message_id);
    } else if (input.media.length === 1) {
      messageId = await this.sendOne(api, creds, input.media[0], input.content, common);
    } else {
      messageId = await this.sendGroup(api, creds, input.media, input.content, common);
    }
    if (!messageId) throw new TransientProviderError('Telegram accepted the message but returned no message_id');
    const url = messageUrl(creds, messageId);
    await input.saveCheckpoint({ messageId, url });
    return { platformPostId: messageId, url };
  }

  /** The Bot API gives bots no view or reaction counts of messages: nothing is asked. */
  fetchMetrics(_credentials: Record<string, unknown>, _ref: PublishedRef): Promise<MetricsResult> {
    return Promise.resolve({
      metrics: {
        likes: null,
        reposts: null,
        replies: null,
        quotes: null,
        impressions: null,
        raw: { offered: false, reason: "Telegram's Bot API gives bots no counts of messages" },
      },
    });
  }

  private async sendOne(
    api: TelegramApi,
    creds: TelegramCredentials,
    media: PublishMedia,
    caption: string,
    common: Record<string, unknown>,
  ): Promise<string | undefined> {
    const video = isVideo(media);
    const parts: FormPart[] = [{ name: 'chat_id', value: creds.chatId }, ...formParts(common)];
    if (caption !== '') parts.push({ name: 'caption', value: caption });
    if (video) {
      parts.push({ name: 'supports_streaming', value: 'true' });
      if (media.width) parts.push({ name: 'width', value: String(media.width) });
      if (media.height) parts.push({ name: 'height', value: String(media.height) });
    }
    parts.push({ name: video ? 'video' : 'photo', media });
    const message = await api.call(video ? 'sendVideo' : 'sendPhoto', multipartForm(parts), 'media', MEDIA_TIMEOUT_MS);
    return asId(asObject(message)?.message_id);
  }

  /** An album: the caption on the first item, which Telegram shows under the album. */
  private async sendGroup(
    api: TelegramApi,
    creds: TelegramCredentials,
    media: PublishMedia[],
    caption: string,
    common: Record<string, unknown>,
  ): Promise<string | undefined> {
    const items = media.map((m, i) => ({
      type: isVideo(m) ? 'video' : 'photo',
      media: `attach://file${i}`,
      ...(i === 0 && caption !== '' ? { caption } : {}),
      ...(isVideo(m) ? { supports_streaming: true } : {}),
    }));
    const parts: FormPart[] = [
      { name: 'chat_id', value: creds.chatId },
      { name: 'media', value: JSON.stringify(items) },
      ...formParts(common),
    ];
    media.forEach((m, i) => parts.push({ name: `file${i}`, media: m }));
    const messages = await api.call('sendMediaGroup', multipartForm(parts), 'media', MEDIA_TIMEOUT_MS);
    return asId(asObject(asArray(messages)?.[0])?.message_id);
  }

  /** A connect-time call: any answer is returned; unreachable becomes InvalidCredentialsError. */
  private async connectCall(api: TelegramApi, method: string, params: Record<string, unknown>) {
    try {
      const answer = await api.send(method, params);
      if (answer.status === 429 || answer.status >= 500) throw telegramFailure(answer, 'content');
      return answer;
    } catch (err) {
      if (err instanceof ProviderError && err.transient) {
        throw new InvalidCredentialsError(`Telegram could not be reached to check the bot: ${err.message}`);
      }
      throw err;
    }
  }
}

/**
 * The parameters every send method takes, from the target's options and the reply of a thread part:
 * `disable_notification`, `protect_content`, `message_thread_id`, `reply_parameters`.
 */
function sendParameters(options: Partial<TelegramOptions>, reply: Record<string, unknown> | undefined) {
  const params: Record<string, unknown> = {};
  if (options.messageThreadId) params.message_thread_id = options.messageThreadId;
  if (options.disableNotification) params.disable_notification = true;
  if (options.protectContent) params.protect_content = true;
  if (reply) params.reply_parameters = reply;
  return params;
}

/** Parameters as multipart text fields (objects as JSON, as the Bot API reads them). */
function formParts(params: Record<string, unknown>): FormPart[] {
  return Object.entries(params).map(([name, value]) => ({
    name,
    value: typeof value === 'string' ? value : JSON.stringify(value),
  }));
}

/** Why the bot cannot post in the chat, from its getChatMember answer; undefined when it can. */
function cannotPost(type: string, member: Record<string, unknown> | undefined): string | undefined {
  const status = asNonEmptyString(member?.status);
  if (type === 'channel') {
    if (status === 'creator') return undefined;
    if (status === 'administrator' && member?.can_post_messages === true) return undefined;
    return status === 'administrator'
      ? 'The bot is an administrator of the channel without the right to post messages'
      : 'The bot must be an administrator of the channel with the right to post messages';
  }
  if (status === 'creator' || status === 'administrator' || status === 'member') return undefined;
  if (status === 'restricted' && member?.can_send_messages === true) return undefined;
  return status === 'restricted'
    ? 'The bot is restricted in the group and may not send messages'
    : 'The bot is not a member of the group; add it first';
}

/**
 * A link to the message: t.me/<username>/<id> in a public chat, t.me/c/<id>/<id> in a private
 * channel or supergroup (for its members); empty for basic groups and private chats, which have none.
 */
function messageUrl(creds: TelegramCredentials, messageId: string): string {
  if (creds.chatUsername) return `https://t.me/${creds.chatUsername}/${messageId}`;
  if (creds.chatId.startsWith('-100')) return `https://t.me/c/${creds.chatId.slice(4)}/${messageId}`;
  return '';
}

/** The Telegram plugin, registered in provider.list.ts. */
export const telegramPlugin = defineProvider({
  id: 'telegram',
  apiVersion: {
    pinned: 'Bot API (unversioned)',
    source:
      'Telegram Bot API (core.telegram.org/bots/api), checked 2026-11-29: one current version, changes are additive',
  },
  displayName: 'Telegram',
  connectKind: 'credentials',
  credentials: TelegramCredentialsDto,
  defaultLimits: TELEGRAM_LIMITS,
  capabilities: { altText: false, metrics: [] },
  optionsSchema: TELEGRAM_OPTIONS_SCHEMA,
  settings: {
    apiBaseUrl: setting.url(
      'TELEGRAM_API_BASE_URL',
      `override of ${TELEGRAM_DEFAULT_API_BASE_URL} (Bot API server, or a local telegram-bot-api server)`,
    ),
  },
  create: ({ http, settings }) =>
    new TelegramProvider(http, (settings.apiBaseUrl ?? TELEGRAM_DEFAULT_API_BASE_URL).replace(/\/+$/, '')),
});
