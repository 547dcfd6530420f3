import { randomBytes } from 'node:crypto';
import { FakeCounts, FakeHttpServer, FakeReply, FakeRequest, FakeServerOptions } from './fake-http-server';
import type { OAuthNetworkFake, ProviderContractFake } from './provider-contract';
import { describedContract, oauthContractFake } from './provider-contract';
import { slackDescription } from './descriptions/networks';
import { recordRevocation, type RevocationRequest } from './revocation';

export interface FakeSlackChannel {
  id: string;
  name: string;
  isPrivate?: boolean;
  /** Whether the bot is in it (private channels list only those). */
  isMember?: boolean;
}

export interface FakeSlackMessage {
  ts: string;
  channel: string;
  text: string;
  blocks: unknown;
  files: Array<{ id: string; filename: string; bytes: number; altText: string | null }>;
  reactions: Array<{ name: string; count: number; users: string[] }>;
  replyCount: number;
  /** The thread it replies in (`thread_ts`), or null. */
  threadTs: string | null;
  replyBroadcast: boolean;
  /** `unfurl_links` and `unfurl_media` as sent (null when left out). */
  unfurlLinks: boolean | null;
  unfurlMedia: boolean | null;
}

export interface SlackFakeOptions extends FakeServerOptions {
  channels?: FakeSlackChannel[];
  /** files.completeUploadExternal answers before the share is listed (files.info lists it later). */
  lateShares?: boolean;
}

const TEAM = { id: 'T0FAKE001', name: 'Acme' };

/**
 * A local Slack: the OAuth v2 install (`/oauth/v2/authorize` redirecting at once with a code,
 * `oauth.v2.access` answering a bot token), and the Web API methods the adapter uses (auth.test,
 * conversations.list, chat.postMessage, files.getUploadURLExternal + the upload URL +
 * files.completeUploadExternal, files.info, reactions.get). Answers are Slack's: HTTP 200 with
 * `ok: false` and an `error` for refusals, HTTP 429 with Retry-After when rate limited.
 */
export class SlackFake extends FakeHttpServer implements OAuthNetworkFake {
  readonly clientId = 'slack-client-id';
  readonly clientSecret = 'slack-client-secret';
  readonly channels: FakeSlackChannel[];
  readonly messages: FakeSlackMessage[] = [];
  /** What a 429 asks to wait, in seconds. */
  retryAfterSeconds = 1;
  private readonly tokens = new Set<string>();
  private readonly codes = new Map<string, string>();
  private readonly uploads = new Map<
    string,
    { filename: string; length: number; altText: string | null; bytes: number | null }
  >();
  private nextTs = 1700000000;
  private readonly lateShares: boolean;
  private readonly shares = new Map<string, { channel: string; ts: string }>();

  constructor(options: SlackFakeOptions = {}) {
    super(options);
    this.channels = options.channels ?? [{ id: 'C0GENERAL', name: 'general' }];
    this.lateShares = options.lateShares ?? false;
    // Every Web API call against the methods' arguments as recorded (test/fixtures/networks/slack).
    // Not API methods: the install page, the upload URL (files.slack.com) and oauth.v2.access, which
    // the service's shared OAuth client calls with the PKCE verifier (Slack's OAuth guide, not a
    // method's argument list). auth.revoke, which takes no argument but the token (sent as Bearer), is
    // not in the recorded methods either.
    this.checkAgainst(slackDescription(), {
      refuse: (problems) => slackRefusal(problems),
      unchecked: (req) => ['authorize', 'upload', 'oauth.v2.access', 'auth.revoke'].includes(req.route),
    });
  }

  issueToken(): string {
    const token = `xoxb-${randomBytes(8).toString('hex')}`;
    this.tokens.add(token);
    this.lastAccessToken = token;
    return token;
  }

  /** auth.revoke requests, oldest first. */
  readonly revocations: RevocationRequest[] = [];
  /** The bot token issued last. */
  lastAccessToken = '';

  revokeAll(): void {
    this.tokens.clear();
  }

  setCounts(ts: string, counts: Partial<FakeCounts>): void {
    const message = this.messages.find((m) => m.ts === ts);
    if (!message) return;
    if (counts.likes !== undefined) message.reactions = [{ name: 'thumbsup', count: counts.likes, users: [] }];
    if (counts.replies !== undefined) message.replyCount = counts.replies;
  }

  appEnv(): Record<string, string> {
    return {
      SLACK_CLIENT_ID: this.clientId,
      SLACK_CLIENT_SECRET: this.clientSecret,
      SLACK_AUTH_BASE_URL: this.baseUrl,
      SLACK_API_BASE_URL: this.baseUrl,
    };
  }

  async consent(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return location;
  }

  protected routeOf(_method: string, path: string): string | undefined {
    if (path === '/oauth/v2/authorize') return 'authorize';
    if (path.startsWith('/upload/v1/')) return 'upload';
    const match = /^\/api\/([\w.]+)$/.exec(path);
    return match ? match[1] : undefined;
  }

  protected injectedFailure(status: number): FakeReply {
    if (status === 429) {
      return {
        status,
        headers: { 'retry-after': String(this.retryAfterSeconds) },
        body: { ok: false, error: 'ratelimited' },
      };
    }
    // Slack refuses with HTTP 200 and ok: false.
    if (status === 400) return { status: 200, body: { ok: false, error: 'msg_too_long' } };
    return { status, body: { ok: false, error: 'internal_error' } };
  }

  protected handle(req: FakeRequest): FakeReply {
    if (req.route === 'authorize') return this.authorize(req);
    if (req.route === 'oauth.v2.access') return this.exchange(req);
    if (req.route === 'upload') return this.receiveUpload(req);
    if (req.route === 'auth.revoke') recordRevocation(req, this.revocations);
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!token) return { status: 200, body: { ok: false, error: 'not_authed' } };
    if (!this.tokens.has(token)) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    // auth.revoke: the token stops working (Slack deactivates the bot user; the app stays installed).
    if (req.route === 'auth.revoke') {
      this.tokens.delete(token);
      return this.ok({ revoked: true });
    }
    const args: Record<string, unknown> = Object.fromEntries(req.url.searchParams);
    if (String(req.headers['content-type'] ?? '').startsWith('application/json') && req.body.length > 0) {
      Object.assign(args, JSON.parse(req.body.toString('utf8')) as Record<string, unknown>);
    }
    switch (req.route) {
      case 'auth.test':
        return this.ok({
          url: `${this.baseUrl}/`,
          team: TEAM.name,
          user: 'publisher',
          team_id: TEAM.id,
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        });
      case 'conversations.list': {
        const types = (typeof args.types === 'string' ? args.types : 'public_channel').split(',');
        const channels = this.channels
          .filter((c) => types.includes(c.isPrivate ? 'private_channel' : 'public_channel'))
          .filter((c) => !c.isPrivate || c.isMember)
          .map((c) => ({
            id: c.id,
            name: c.name,
            is_channel: true,
            is_private: Boolean(c.isPrivate),
            is_member: Boolean(c.isMember),
            is_archived: false,
          }));
        return this.ok({ channels, response_metadata: { next_cursor: '' } });
      }
      case 'chat.postMessage':
        return this.postMessage(args);
      case 'files.getUploadURLExternal': {
        const length = Number(args.length);
        if (typeof args.filename !== 'string' || !Number.isInteger(length) || length <= 0) {
          return this.refuse('invalid_arguments');
        }
        // Slack's documented refusal of an alt text over 1,000 characters.
        if (typeof args.alt_txt === 'string' && [...args.alt_txt].length > 1000)
          return this.refuse('alt_txt_too_large');
        const fileId = `F${randomBytes(5).toString('hex').toUpperCase()}`;
        this.uploads.set(fileId, {
          filename: String(args.filename),
          length,
          altText: typeof args.alt_txt === 'string' ? args.alt_txt : null,
          bytes: null,
        });
        return this.ok({ upload_url: `${this.baseUrl}/upload/v1/${fileId}`, file_id: fileId });
      }
      case 'files.completeUploadExternal':
        return this.complete(args);
      case 'files.info': {
        const share = this.shares.get(String(args.file));
        if (!share) return this.refuse('file_not_found');
        return this.ok({
          file: { id: args.file, shares: { public: { [share.channel]: [{ ts: share.ts, channel_name: 'general' }] } } },
        });
      }
      case 'reactions.get': {
        const message = this.messages.find((m) => m.ts === args.timestamp && m.channel === args.channel);
        if (!message) return this.refuse('message_not_found');
        return this.ok({
          type: 'message',
          channel: message.channel,
          message: {
            type: 'message',
            text: message.text,
            ts: message.ts,
            ...(message.reactions.length > 0 ? { reactions: message.reactions } : {}),
            ...(message.replyCount > 0 ? { reply_count: message.replyCount, thread_ts: message.ts } : {}),
          },
        });
      }
      default:
        return this.refuse('unknown_method');
    }
  }

  private postMessage(args: Record<string, unknown>): FakeReply {
    const channel = this.channels.find((c) => c.id === args.channel);
    if (!channel) return this.refuse('channel_not_found');
    if (channel.isPrivate && !channel.isMember) return this.refuse('not_in_channel');
    const text = typeof args.text === 'string' ? args.text : '';
    if (!text && !args.blocks) return this.refuse('no_text');
    for (const block of Array.isArray(args.blocks) ? (args.blocks as Array<Record<string, unknown>>) : []) {
      const t = (block.text as Record<string, unknown> | undefined)?.text;
      if (typeof t === 'string' && [...t].length > 3000) return this.refuse('invalid_blocks');
    }
    const threadTs = this.threadOf(channel.id, args.thread_ts);
    if (threadTs === false) return this.refuse('thread_not_found');
    const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
    const ts = `${this.nextTs++}.000100`;
    this.messages.push({
      ts,
      channel: channel.id,
      text,
      blocks: args.blocks ?? null,
      files: [],
      reactions: [],
      replyCount: 0,
      threadTs,
      replyBroadcast: threadTs !== null && args.reply_broadcast === true,
      unfurlLinks: bool(args.unfurl_links),
      unfurlMedia: bool(args.unfurl_media),
    });
    if (threadTs) this.messages.find((m) => m.ts === threadTs)!.replyCount++;
    return this.ok({ channel: channel.id, ts, message: { type: 'message', text, ts, bot_id: 'B0BOT' } });
  }

  /**
   * The thread a `thread_ts` names: null when none was sent, false when it is no top-level message
   * of the channel (a reply's ts is refused: Slack threads are one level deep).
   */
  private threadOf(channel: string, threadTs: unknown): string | null | false {
    if (threadTs === undefined) return null;
    const parent = this.messages.find((m) => m.channel === channel && m.ts === threadTs);
    return parent && parent.threadTs === null ? parent.ts : false;
  }

  private receiveUpload(req: FakeRequest): FakeReply {
    const upload = this.uploads.get(req.path.split('/').pop() ?? '');
    if (!upload) return { status: 404, raw: Buffer.from('Not Found') };
    if (req.body.length !== upload.length) return { status: 400, raw: Buffer.from('length mismatch') };
    upload.bytes = req.body.length;
    return { status: 200, raw: Buffer.from(`OK - ${req.body.length}`) };
  }

  private complete(args: Record<string, unknown>): FakeReply {
    const files = Array.isArray(args.files) ? (args.files as Array<Record<string, unknown>>) : [];
    const channel = this.channels.find((c) => c.id === args.channel_id);
    if (!channel) return this.refuse('channel_not_found');
    const items = files.map((f) => ({ id: String(f.id), upload: this.uploads.get(String(f.id)) }));
    if (items.length === 0 || items.some((i) => !i.upload || i.upload.bytes === null))
      return this.refuse('upload_not_complete');
    const threadTs = this.threadOf(channel.id, args.thread_ts);
    if (threadTs === false) return this.refuse('thread_not_found');
    const ts = `${this.nextTs++}.000200`;
    const text = typeof args.initial_comment === 'string' ? args.initial_comment : '';
    if (threadTs) this.messages.find((m) => m.ts === threadTs)!.replyCount++;
    this.messages.push({
      ts,
      channel: channel.id,
      text,
      threadTs,
      replyBroadcast: false,
      unfurlLinks: null,
      unfurlMedia: null,
      blocks: null,
      files: items.map((i) => ({
        id: i.id,
        filename: i.upload!.filename,
        bytes: i.upload!.bytes!,
        altText: i.upload!.altText,
      })),
      reactions: [],
      replyCount: 0,
    });
    for (const i of items) {
      this.uploads.delete(i.id);
      this.shares.set(i.id, { channel: channel.id, ts });
    }
    return this.ok({
      files: items.map((i) => ({
        id: i.id,
        title: i.upload!.filename,
        shares: this.lateShares ? {} : { public: { [channel.id]: [{ ts, channel_name: channel.name }] } },
      })),
    });
  }

  private authorize(req: FakeRequest): FakeReply {
    const q = Object.fromEntries(req.url.searchParams);
    if (q.client_id !== this.clientId || !q.redirect_uri || !q.scope)
      return { status: 400, raw: Buffer.from('invalid_client_id') };
    const code = `code-${randomBytes(6).toString('hex')}`;
    this.codes.set(code, q.redirect_uri);
    const target = new URL(q.redirect_uri);
    target.searchParams.set('code', code);
    if (q.state) target.searchParams.set('state', q.state);
    return { status: 302, headers: { location: target.toString() } };
  }

  private exchange(req: FakeRequest): FakeReply {
    const form = new URLSearchParams(req.body.toString('utf8'));
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret)
      return this.refuse('invalid_client');
    const code = form.get('code') ?? '';
    const redirect = this.codes.get(code);
    if (!redirect || redirect !== form.get('redirect_uri')) return this.refuse('invalid_code');
    this.codes.delete(code);
    return this.ok({
      access_token: this.issueToken(),
      token_type: 'bot',
      scope: 'chat:write,chat:write.public,channels:read,groups:read,files:write,reactions:read',
      bot_user_id: 'U0BOT',
      app_id: 'A0APP',
      team: TEAM,
      enterprise: null,
      authed_user: { id: 'U0HUMAN' },
    });
  }

  private ok(body: Record<string, unknown>): FakeReply {
    return { status: 200, body: { ok: true, ...body } };
  }

  private refuse(error: string): FakeReply {
    return { status: 200, body: { ok: false, error } };
  }
}

/**
 * Slack's answer to arguments its method refuses: HTTP 200, `ok: false` and the method's documented
 * error (`alt_txt_too_large` for a long alt text, `invalid_blocks` for a block out of Block Kit's
 * bounds, `invalid_arguments` otherwise, with the reasons in `response_metadata.messages`).
 */
export function slackRefusal(problems: string[]): FakeReply {
  const said = problems.join('\n');
  const error = /alt_txt/.test(said)
    ? 'alt_txt_too_large'
    : /blocks\//.test(said)
      ? 'invalid_blocks'
      : 'invalid_arguments';
  // Slack lists the reasons (response_metadata.messages) with invalid_arguments only.
  const reasons =
    error === 'invalid_arguments' ? { response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) } } : {};
  return { status: 200, body: { ok: false, error, ...reasons } };
}

export function contractFake(): ProviderContractFake {
  const fake = new SlackFake();
  return oauthContractFake(fake, {
    publishRoute: 'chat.postMessage',
    rejectStatus: 400,
    revocation: {
      requests: () => fake.revocations,
      lastAccessToken: () => fake.lastAccessToken,
      expected: (token) => [{ method: 'POST', path: '/api/auth.revoke', authorization: `Bearer ${token}` }],
    },
    described: describedContract(fake, () => ({
      method: 'POST',
      url: `${fake.baseUrl}/api/chat.postMessage`,
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${fake.issueToken()}` },
      body: JSON.stringify({ channel_id: fake.channels[0].id, text: 'renamed' }),
      renamed: { from: 'channel', to: 'channel_id' },
    })),
    posts: () =>
      fake.messages.map((m) => ({
        platformPostId: m.ts,
        // The text as Slack holds it (&, < and > escaped); the contract's texts have none.
        text: m.text,
        mediaCount: m.files.length,
        mediaAltTexts: m.files.map((f) => f.altText),
        inReplyTo: null,
      })),
  });
}
