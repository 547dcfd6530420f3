import { FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { parseMultipart } from './mastodon.fake';
import { describedContract, type ProviderContractFake } from './provider-contract';
import { telegramDescription } from './descriptions/networks';

/** A bot the fake knows: its token and user. */
export interface FakeTelegramBot {
  id: number;
  token: string;
  username: string;
}

/** A chat the fake holds, with the bots in it and what they may do. */
export interface FakeTelegramChat {
  id: number;
  type: 'channel' | 'supergroup' | 'group' | 'private';
  title?: string;
  username?: string;
  firstName?: string;
  /** A supergroup with topics: the ids of its forum topics (`message_thread_id`). */
  topics?: number[];
  /** Membership of each bot by id (`status` and rights as getChatMember answers them). */
  members: Map<number, Record<string, unknown>>;
}

/** One post as the chat shows it: a message, or an album of several messages. */
export interface FakeTelegramPost {
  /** message_id of the (first) message. */
  messageId: number;
  chatId: number;
  method: string;
  text: string;
  /** Whether the text arrived with a parse_mode (the adapter sends none). */
  parseMode: string | null;
  media: Array<{ type: 'photo' | 'video'; filename: string; contentType: string; bytes: number }>;
  replyTo: number | null;
  botId: number;
  /** The forum topic it went to (`message_thread_id`), or null. */
  messageThreadId: number | null;
  disableNotification: boolean;
  protectContent: boolean;
  /** `link_preview_options.is_disabled` of a text message. */
  linkPreviewDisabled: boolean;
}

export interface TelegramFakeOptions extends FakeServerOptions {
  bots?: FakeTelegramBot[];
  chats?: FakeTelegramChat[];
}

const MiB = 1024 * 1024;

export const TELEGRAM_BOT: FakeTelegramBot = {
  id: 7000001,
  token: '7000001:AAFakeTelegramBotTokenForTests_0123456789',
  username: 'publishing_test_bot',
};
export const TELEGRAM_CHANNEL_ID = -1001234567890;

/**
 * A local Bot API server (`POST /bot<token>/<method>`, JSON or multipart parameters) with the
 * methods the adapter uses: getMe, getChat, getChatMember, sendMessage, sendPhoto, sendVideo and
 * sendMediaGroup. Answers are `{ok, result}` / `{ok: false, error_code, description, parameters}`
 * as Telegram's; limits are Telegram's (text 4096, caption 1024, photo 10 MB, bot uploads 50 MB,
 * albums of 2-10); `message_thread_id` must name a forum topic of the chat ("message thread not
 * found" otherwise), and the send options are recorded. A 429 carries `parameters.retry_after`
 * (`retryAfterSeconds`).
 */
export class TelegramFake extends FakeHttpServer {
  readonly bots: FakeTelegramBot[];
  readonly chats = new Map<number, FakeTelegramChat>();
  readonly posts: FakeTelegramPost[] = [];
  /** What a 429 asks to wait, in seconds. */
  retryAfterSeconds = 1;
  private readonly revoked = new Set<string>();
  private nextMessageId = 100;

  constructor(options: TelegramFakeOptions = {}) {
    super(options);
    this.bots = options.bots ?? [TELEGRAM_BOT];
    const chats = options.chats ?? [
      {
        id: TELEGRAM_CHANNEL_ID,
        type: 'channel',
        title: 'Release notes',
        username: 'release_notes',
        members: new Map([[TELEGRAM_BOT.id, { status: 'administrator', can_post_messages: true }]]),
      },
    ];
    for (const chat of chats) this.chats.set(chat.id, chat);
    // Every Bot API call against the methods' parameters as recorded from @grammyjs/types
    // (test/fixtures/networks/telegram), refused as Telegram refuses bad parameters: 400
    // {"ok": false, "error_code": 400, "description": "Bad Request: ..."}.
    this.checkAgainst(telegramDescription(), {
      refuse: (problems) => this.error(400, `Bad Request: ${problems.join('; ')}`),
    });
  }

  revokeAll(): void {
    for (const bot of this.bots) this.revoked.add(bot.token);
  }

  protected routeOf(_method: string, path: string): string | undefined {
    const match = /^\/bot[^/]+\/(\w+)$/.exec(path);
    return match ? match[1] : undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 429) {
      return this.error(429, `Too Many Requests: retry after ${this.retryAfterSeconds}`, {
        retry_after: this.retryAfterSeconds,
      });
    }
    if (status === 400) return this.error(400, 'Bad Request: message text is empty');
    if (status === 403) return this.error(403, 'Forbidden: bot was kicked from the channel chat');
    return this.error(status, status >= 500 ? 'Internal Server Error' : 'Bad Request');
  }

  protected handle(req: FakeRequest): FakeReply | Promise<FakeReply> {
    const token = /^\/bot([^/]+)\//.exec(req.path)?.[1] ?? '';
    const bot = this.bots.find((b) => b.token === token);
    if (!bot || this.revoked.has(token)) return this.error(401, 'Unauthorized');
    const params = this.params(req);
    if (!params) return this.error(400, 'Bad Request: invalid request parameters');
    switch (req.route) {
      case 'getMe':
        return this.ok({ id: bot.id, is_bot: true, first_name: 'Publishing bot', username: bot.username });
      case 'getChat': {
        const chat = this.chatFor(params.fields.chat_id);
        if (!chat) return this.error(400, 'Bad Request: chat not found');
        return this.ok({
          id: chat.id,
          type: chat.type,
          ...(chat.title ? { title: chat.title } : {}),
          ...(chat.username ? { username: chat.username } : {}),
          ...(chat.firstName ? { first_name: chat.firstName } : {}),
          accent_color_id: 0,
          max_reaction_count: 11,
        });
      }
      case 'getChatMember': {
        const chat = this.chatFor(params.fields.chat_id);
        if (!chat) return this.error(400, 'Bad Request: chat not found');
        const userId = Number(params.fields.user_id);
        const member = chat.members.get(userId) ?? { status: 'left' };
        return this.ok({ user: { id: userId, is_bot: true, first_name: 'Publishing bot' }, ...member });
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendVideo':
      case 'sendMediaGroup':
        return this.post(req.route, bot, params);
      default:
        return this.error(404, 'Not Found');
    }
  }

  private async post(method: string, bot: FakeTelegramBot, params: Params): Promise<FakeReply> {
    const chat = this.chatFor(params.fields.chat_id);
    if (!chat) return this.error(400, 'Bad Request: chat not found');
    const member = chat.members.get(bot.id);
    const mayPost =
      chat.type === 'private' ||
      (chat.type === 'channel'
        ? member?.status === 'creator' || (member?.status === 'administrator' && member.can_post_messages === true)
        : ['creator', 'administrator', 'member'].includes(String(member?.status)));
    if (!mayPost) {
      return this.error(
        403,
        `Forbidden: bot is not a member of the ${chat.type === 'channel' ? 'channel' : 'group'} chat`,
      );
    }
    const reply = params.fields.reply_parameters
      ? (JSON.parse(params.fields.reply_parameters) as Record<string, unknown>)
      : null;
    const replyTo = reply ? Number(reply.message_id) : null;
    if (replyTo !== null && !this.posts.some((p) => p.chatId === chat.id && p.messageId === replyTo)) {
      if (reply?.allow_sending_without_reply !== true)
        return this.error(400, 'Bad Request: message to be replied not found');
    }
    const threadId = params.fields.message_thread_id !== undefined ? Number(params.fields.message_thread_id) : null;
    if (threadId !== null && !(chat.topics ?? []).includes(threadId)) {
      return this.error(400, 'Bad Request: message thread not found');
    }
    const flag = (name: string) => params.fields[name] === 'true';
    const linkPreview = params.fields.link_preview_options
      ? (JSON.parse(params.fields.link_preview_options) as Record<string, unknown>)
      : null;
    const parseMode = params.fields.parse_mode ?? null;
    let text = '';
    const media: FakeTelegramPost['media'] = [];
    if (method === 'sendMessage') {
      text = params.fields.text ?? '';
      if (text.trim() === '') return this.error(400, 'Bad Request: message text is empty');
      if (text.length > 4096) return this.error(400, 'Bad Request: message is too long');
    } else {
      const items: Array<{ type: string; media: string; caption?: string }> =
        method === 'sendMediaGroup'
          ? (JSON.parse(params.fields.media ?? '[]') as Array<{ type: string; media: string; caption?: string }>)
          : [
              {
                type: method === 'sendPhoto' ? 'photo' : 'video',
                media: `attach://${method === 'sendPhoto' ? 'photo' : 'video'}`,
                caption: params.fields.caption,
              },
            ];
      if (method === 'sendMediaGroup' && (items.length < 2 || items.length > 10)) {
        return this.error(400, 'Bad Request: wrong number of media in the album: must be 2-10');
      }
      for (const item of items) {
        const name = item.media.replace(/^attach:\/\//, '');
        const file = params.files.get(name);
        if (!file) return this.error(400, `Bad Request: wrong HTTP URL specified or file ${name} not found`);
        const type = item.type === 'video' ? 'video' : 'photo';
        if (type === 'photo' && !/^image\//.test(file.contentType))
          return this.error(400, 'Bad Request: IMAGE_PROCESS_FAILED');
        if (type === 'photo' && file.bytes > 10 * MiB) return this.error(400, 'Bad Request: PHOTO_INVALID_DIMENSIONS');
        if (file.bytes > 50 * MiB) return this.error(413, 'Request Entity Too Large');
        media.push({ type, filename: file.filename, contentType: file.contentType, bytes: file.bytes });
      }
      text = items.map((i) => i.caption ?? '').find((c) => c !== '') ?? '';
      if (text.length > 1024) return this.error(400, 'Bad Request: message caption is too long');
    }
    if (parseMode === 'HTML' && /<(?!\/?(b|i|u|s|a|code|pre)\b)/.test(text)) {
      return this.error(400, "Bad Request: can't parse entities: Unsupported start tag");
    }
    const count = Math.max(1, method === 'sendMediaGroup' ? media.length : 1);
    const first = this.nextMessageId;
    this.nextMessageId += count;
    this.posts.push({
      messageId: first,
      chatId: chat.id,
      method,
      text,
      parseMode,
      media,
      replyTo,
      botId: bot.id,
      messageThreadId: threadId,
      disableNotification: flag('disable_notification'),
      protectContent: flag('protect_content'),
      linkPreviewDisabled: linkPreview?.is_disabled === true,
    });
    await this.waitIfHeld();
    const date = Math.floor(Date.now() / 1000);
    const messageJson = (id: number, i: number) => ({
      message_id: id,
      date,
      chat: { id: chat.id, type: chat.type, ...(chat.title ? { title: chat.title } : {}) },
      ...(threadId !== null ? { message_thread_id: threadId, is_topic_message: true } : {}),
      ...(flag('protect_content') ? { has_protected_content: true } : {}),
      ...(method === 'sendMessage' ? { text } : {}),
      ...(i === 0 && method !== 'sendMessage' && text ? { caption: text } : {}),
      ...(media[i]?.type === 'photo'
        ? { photo: [{ file_id: `photo-${id}`, file_unique_id: `u${id}`, width: 1, height: 1 }] }
        : {}),
      ...(media[i]?.type === 'video'
        ? { video: { file_id: `video-${id}`, file_unique_id: `v${id}`, width: 1, height: 1, duration: 1 } }
        : {}),
      ...(method === 'sendMediaGroup' ? { media_group_id: String(first) } : {}),
    });
    if (method === 'sendMediaGroup') return this.ok(media.map((_, i) => messageJson(first + i, i)));
    return this.ok(messageJson(first, 0));
  }

  private chatFor(chatId: string | undefined): FakeTelegramChat | undefined {
    if (chatId === undefined) return undefined;
    if (chatId.startsWith('@')) return [...this.chats.values()].find((c) => c.username === chatId.slice(1));
    return this.chats.get(Number(chatId));
  }

  /** Parameters from a JSON body, a multipart form or the query string, as text fields and files. */
  private params(req: FakeRequest): Params | undefined {
    const fields: Record<string, string> = Object.fromEntries(req.url.searchParams);
    const files = new Map<string, { filename: string; contentType: string; bytes: number }>();
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) {
      const json = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
      for (const [k, v] of Object.entries(json)) fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
    } else if (type.startsWith('multipart/form-data')) {
      const parts = parseMultipart(req.body, type);
      if (!parts) return undefined;
      for (const part of parts) {
        if (part.filename !== undefined) {
          files.set(part.name, {
            filename: part.filename,
            contentType: part.contentType ?? 'application/octet-stream',
            bytes: part.data.length,
          });
        } else fields[part.name] = part.data.toString('utf8');
      }
    }
    return { fields, files };
  }

  private ok(result: unknown): FakeReply {
    return { status: 200, body: { ok: true, result } };
  }

  private error(status: number, description: string, parameters?: Record<string, unknown>): FakeReply {
    return { status, body: { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) } };
  }
}

interface Params {
  fields: Record<string, string>;
  files: Map<string, { filename: string; contentType: string; bytes: number }>;
}

/** The fake's settings for the app: the Bot API base pointed at the fake. */
export function telegramAppEnv(fake: TelegramFake): Record<string, string> {
  return { TELEGRAM_API_BASE_URL: fake.baseUrl };
}

export function contractFake(): ProviderContractFake {
  const fake = new TelegramFake();
  return {
    start: async () => {
      await fake.start();
      return { botToken: TELEGRAM_BOT.token, chatId: '@release_notes' };
    },
    stop: () => fake.stop(),
    wrongCredentials: () => ({ botToken: '7000001:AAWrongWrongWrongWrongWrongWrongWrong', chatId: '@release_notes' }),
    publishRoute: 'sendMessage',
    rejectStatus: 400,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/bot${TELEGRAM_BOT.token}/sendMessage`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: '@release_notes', message: 'renamed' }),
      renamed: { from: 'text', to: 'message' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.posts.map((p) => ({
        platformPostId: String(p.messageId),
        text: p.text,
        mediaCount: p.media.length,
        inReplyTo: p.replyTo === null ? null : String(p.replyTo),
      })),
    // The Bot API reports no counts to bots (the plugin declares `metrics: []`).
    setCounts: () => undefined,
    appEnv: () => telegramAppEnv(fake),
  };
}
