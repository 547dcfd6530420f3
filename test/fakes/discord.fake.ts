import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import { parseMultipart } from './mastodon.fake';
import { type ProviderContractFake, describedContract } from './provider-contract';
import { discordDescription } from './descriptions/networks';

/** A webhook the fake knows, in a text channel or a forum channel. */
export interface FakeDiscordWebhook {
  id: string;
  token: string;
  name: string;
  guildId: string;
  channelId: string;
  /** A forum channel: every message must start a post (`thread_name`) or go to a thread (`thread_id`). */
  forum?: boolean;
  /** Tag ids a forum's posts may carry (`applied_tags`). */
  tags?: string[];
}

export interface FakeDiscordMessage {
  id: string;
  webhookId: string;
  /** The channel it is in: the webhook's, or the thread (a forum post) it started or went to. */
  channelId: string;
  content: string;
  threadName: string | null;
  /** The name and avatar it was sent under (`username`, `avatar_url`), null for the webhook's. */
  username: string | null;
  avatarUrl: string | null;
  /** Message flags sent (4: SUPPRESS_EMBEDS). */
  flags: number;
  appliedTags: string[];
  allowedMentions: unknown;
  attachments: Array<{ filename: string; contentType: string; size: number; description: string | null }>;
  reactions: Array<{ count: number; emoji: { id: null; name: string } }>;
}

export interface DiscordFakeOptions extends FakeServerOptions {
  webhooks?: FakeDiscordWebhook[];
  /** Upload limit of a request, all files together (Discord: 10 MiB without boosts). */
  maxUploadBytes?: number;
}

export const DISCORD_WEBHOOK: FakeDiscordWebhook = {
  id: '1300000000000000001',
  token: 'FakeWebhookToken-abcdefghijklmnopqrstuvwxyz0123456789_ABCDEFGHIJKLMNOPQR',
  name: 'Release bot',
  guildId: '1200000000000000001',
  channelId: '1210000000000000001',
};

/**
 * A local Discord speaking the webhook endpoints the adapter uses: GET the webhook
 * (`/api/webhooks/:id/:token`), execute it (POST, JSON or multipart with `payload_json` and
 * `files[n]`, `?wait=true` answering the message, `?thread_id=`), and GET one of its messages. Errors
 * are Discord's `{message, code}`; a 429 is `{message, retry_after, global}` with Retry-After.
 * Forum channels refuse messages without `thread_name` (code 220001), other channels refuse one (code
 * 220003), and `username`, `avatar_url`, `flags` and a forum post's `applied_tags` (tags of the
 * forum) are checked and recorded, as Discord does.
 */
export class DiscordFake extends FakeHttpServer {
  readonly webhooks: FakeDiscordWebhook[];
  readonly messages: FakeDiscordMessage[] = [];
  /** What a 429 asks to wait, in seconds (Discord sends a float). */
  retryAfterSeconds = 1.2;
  private readonly revoked = new Set<string>();
  private nextId = 1400000000000000000n;
  /** Upload limit of a request, all files together. */
  maxUploadBytes: number;

  constructor(options: DiscordFakeOptions = {}) {
    super(options);
    this.webhooks = options.webhooks ?? [DISCORD_WEBHOOK];
    this.maxUploadBytes = options.maxUploadBytes ?? 10 * 1024 * 1024;
    // Every call is checked against Discord's OpenAPI document (base path /api/v10); Discord answers
    // a malformed request 400 "Invalid Form Body" (code 50035) with the errors.
    this.checkAgainst(discordDescription(), {
      refuse: (problems) => ({
        status: 400,
        body: {
          message: 'Invalid Form Body',
          code: 50035,
          errors: { _errors: problems.map((message) => ({ code: 'INVALID', message })) },
        },
      }),
    });
  }

  webhookUrl(webhook: FakeDiscordWebhook = this.webhooks[0]): string {
    return `${this.baseUrl}/api/webhooks/${webhook.id}/${webhook.token}`;
  }

  revokeAll(): void {
    for (const w of this.webhooks) this.revoked.add(w.id);
  }

  setCounts(messageId: string, counts: Partial<FakeCounts>): void {
    const message = this.messages.find((m) => m.id === messageId);
    if (message && counts.likes !== undefined) {
      message.reactions = [
        { count: counts.likes - 1, emoji: { id: null, name: '👍' } },
        { count: 1, emoji: { id: null, name: '🎉' } },
      ].filter((r) => r.count > 0);
    }
  }

  protected routeOf(method: string, path: string): string | undefined {
    if (/^\/api(\/v\d+)?\/webhooks\/\d+\/[\w-]+\/messages\/\d+$/.test(path))
      return `${method} /api/webhooks/:id/:token/messages/:id`;
    if (/^\/api(\/v\d+)?\/webhooks\/\d+\/[\w-]+$/.test(path)) return `${method} /api/webhooks/:id/:token`;
    return undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 429) {
      return {
        status,
        body: { message: 'You are being rate limited.', retry_after: this.retryAfterSeconds, global: false },
        headers: { 'retry-after': String(Math.ceil(this.retryAfterSeconds)), 'x-ratelimit-scope': 'user' },
      };
    }
    if (status === 400) return { status, body: { message: 'Cannot send an empty message', code: 50006 } };
    if (status === 401) return { status, body: { message: 'Invalid Webhook Token', code: 50027 } };
    return { status, body: { message: status >= 500 ? 'Internal Server Error' : 'Bad Request', code: 0 } };
  }

  protected handle(req: FakeRequest): FakeReply {
    const match = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([\w-]+)/.exec(req.path);
    const webhook = this.webhooks.find((w) => w.id === match?.[1]);
    if (!webhook || this.revoked.has(webhook.id))
      return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    if (webhook.token !== match?.[2]) return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    switch (req.route) {
      case 'GET /api/webhooks/:id/:token':
        return {
          status: 200,
          body: {
            application_id: null,
            avatar: null,
            channel_id: webhook.channelId,
            guild_id: webhook.guildId,
            id: webhook.id,
            name: webhook.name,
            type: 1,
            token: webhook.token,
            url: this.webhookUrl(webhook),
          },
        };
      case 'POST /api/webhooks/:id/:token':
        return this.execute(webhook, req);
      case 'GET /api/webhooks/:id/:token/messages/:id': {
        const id = req.path.split('/').pop();
        const thread = req.url.searchParams.get('thread_id');
        const message = this.messages.find((m) => m.id === id && m.webhookId === webhook.id);
        if (!message || (message.channelId !== webhook.channelId && message.channelId !== thread)) {
          return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
        }
        return { status: 200, body: this.messageJson(message) };
      }
      default:
        return { status: 404, body: { message: '404: Not Found', code: 0 } };
    }
  }

  private execute(webhook: FakeDiscordWebhook, req: FakeRequest): FakeReply {
    const type = String(req.headers['content-type'] ?? '');
    let payload: Record<string, unknown>;
    const files: Array<{ field: string; filename: string; contentType: string; size: number }> = [];
    if (type.startsWith('multipart/form-data')) {
      const parts = parseMultipart(req.body, type);
      const json = parts?.find((p) => p.name === 'payload_json');
      if (!parts || !json) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
      payload = JSON.parse(json.data.toString('utf8')) as Record<string, unknown>;
      for (const p of parts.filter((p) => p.filename !== undefined)) {
        files.push({ field: p.name, filename: p.filename!, contentType: p.contentType ?? '', size: p.data.length });
      }
    } else {
      payload = JSON.parse(req.body.toString('utf8') || '{}') as Record<string, unknown>;
    }
    const content = typeof payload.content === 'string' ? payload.content : '';
    if ([...content].length > 2000) {
      return {
        status: 400,
        body: {
          message: 'Invalid Form Body',
          code: 50035,
          errors: {
            content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
          },
        },
      };
    }
    if (content.trim() === '' && files.length === 0)
      return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    if (files.length > 10) return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    // Discord's limit holds for each file (10 MiB without boosts), not for the files together.
    if (files.some((f) => f.size > this.maxUploadBytes)) {
      return { status: 413, body: { message: 'Request entity too large', code: 40005 } };
    }
    const declared = Array.isArray(payload.attachments) ? (payload.attachments as Array<Record<string, unknown>>) : [];
    const threadId = req.url.searchParams.get('thread_id');
    const threadName = typeof payload.thread_name === 'string' ? payload.thread_name : null;
    if (webhook.forum && !threadId && !threadName) {
      return {
        status: 400,
        body: { message: 'Webhooks posted to forum channels must have a thread_name or thread_id', code: 220001 },
      };
    }
    if (threadName !== null && [...threadName].length > 100)
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035 } };
    if (threadName !== null && !webhook.forum) {
      return { status: 400, body: { message: 'Webhooks can only create threads in forum channels', code: 220003 } };
    }
    const invalid = (field: string, message: string): FakeReply => ({
      status: 400,
      body: {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { [field]: { _errors: [{ code: 'INVALID', message }] } },
      },
    });
    const username = typeof payload.username === 'string' ? payload.username : null;
    if (username !== null && ([...username].length > 80 || /discord|clyde/i.test(username))) {
      return invalid('username', 'Username cannot contain "discord" and must be 80 or fewer in length.');
    }
    const avatarUrl = typeof payload.avatar_url === 'string' ? payload.avatar_url : null;
    if (avatarUrl !== null && !/^https?:\/\//.test(avatarUrl)) return invalid('avatar_url', 'Not a well formed URL.');
    const flags = typeof payload.flags === 'number' ? payload.flags : 0;
    // Webhooks may set SUPPRESS_EMBEDS (4) and SUPPRESS_NOTIFICATIONS (4096) only.
    if ((flags & ~(4 | 4096)) !== 0) return invalid('flags', 'Invalid flags.');
    const appliedTags = Array.isArray(payload.applied_tags) ? payload.applied_tags.map(String) : [];
    if (appliedTags.length > 0) {
      if (threadName === null) return invalid('applied_tags', 'Tags apply only to a new forum post.');
      if (appliedTags.length > 5 || appliedTags.some((tag) => !(webhook.tags ?? []).includes(tag))) {
        return invalid('applied_tags', 'Unknown tag or more than 5 tags.');
      }
    }
    const id = String(this.nextId++);
    const message: FakeDiscordMessage = {
      id,
      webhookId: webhook.id,
      // A forum post is a thread whose id is its starter message's.
      channelId: threadId ?? (webhook.forum ? id : webhook.channelId),
      content,
      threadName,
      username,
      avatarUrl,
      flags,
      appliedTags,
      allowedMentions: payload.allowed_mentions ?? null,
      attachments: files.map((f) => {
        const index = /^files\[(\d+)\]$/.exec(f.field)?.[1];
        const meta = declared.find((a) => String(a.id) === index);
        return {
          filename: f.filename,
          contentType: f.contentType,
          size: f.size,
          description: typeof meta?.description === 'string' ? meta.description : null,
        };
      }),
      reactions: [],
    };
    this.messages.push(message);
    if (req.url.searchParams.get('wait') !== 'true') return { status: 204 };
    return { status: 200, body: this.messageJson(message) };
  }

  private messageJson(m: FakeDiscordMessage): Record<string, unknown> {
    return {
      id: m.id,
      type: 0,
      content: m.content,
      channel_id: m.channelId,
      author: {
        id: m.webhookId,
        username: m.username ?? 'Release bot',
        avatar: null,
        discriminator: '0000',
        bot: true,
      },
      attachments: m.attachments.map((a, i) => ({
        id: `${m.id}${i}`,
        filename: a.filename,
        size: a.size,
        content_type: a.contentType,
        url: `https://cdn.discordapp.com/attachments/${m.channelId}/${m.id}${i}/${a.filename}`,
        ...(a.description ? { description: a.description } : {}),
      })),
      embeds: [],
      mentions: [],
      mention_roles: [],
      pinned: false,
      mention_everyone: false,
      tts: false,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      flags: m.flags,
      components: [],
      webhook_id: m.webhookId,
      ...(m.reactions.length > 0
        ? { reactions: m.reactions.map((r) => ({ ...r, me: false, count_details: { burst: 0, normal: r.count } })) }
        : {}),
    };
  }
}

export function contractFake(): ProviderContractFake {
  const fake = new DiscordFake();
  return {
    start: async () => {
      await fake.start();
      return { webhookUrl: fake.webhookUrl() };
    },
    stop: () => fake.stop(),
    wrongCredentials: () => ({
      webhookUrl: `${fake.baseUrl}/api/webhooks/${DISCORD_WEBHOOK.id}/Wrong-token-0123456789abcdefghijklmnop`,
    }),
    publishRoute: 'POST /api/webhooks/:id/:token',
    rejectStatus: 400,
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/api/v10/webhooks/${DISCORD_WEBHOOK.id}/${DISCORD_WEBHOOK.token}?wait=true`,
      headers: { 'content-type': 'application/json' },
      // Discord's document leaves its objects open (no additionalProperties: false), so a renamed
      // top-level field passes; a renamed required one (the attachment's id) does not.
      body: JSON.stringify({ content: 'renamed', attachments: [{ ident: '0', filename: 'a.png' }] }),
      renamed: { from: 'id', to: 'ident' },
    })),
    failNext: (n, status, route) => fake.failNext(n, status, route),
    revokeAll: () => fake.revokeAll(),
    posts: () =>
      fake.messages.map((m) => ({
        platformPostId: m.id,
        text: m.content,
        mediaCount: m.attachments.length,
        mediaAltTexts: m.attachments.map((a) => a.description),
        inReplyTo: null,
      })),
    setCounts: (id, counts) => fake.setCounts(id, counts),
    appEnv: () => ({ DISCORD_WEBHOOK_ORIGINS: fake.baseUrl }),
  };
}
