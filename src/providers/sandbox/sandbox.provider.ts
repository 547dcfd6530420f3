import { createHash, randomUUID } from 'node:crypto';
import { setting } from '../../config/settings';
import { commonDraftProblems, isVideoMedia } from '../draft-validation.util';
import { countGraphemes } from '../grapheme.util';
import { defineProvider } from '../provider-plugin';
import {
  ContentRejectedError,
  CredentialsRevokedError,
  InvalidCredentialsError,
  ProcessingPendingError,
  TransientProviderError,
  VideoProcessingFailedError,
} from '../provider.errors';
import type {
  ChannelLimits,
  CommentInput,
  ConnectedAccount,
  Metrics,
  MetricsResult,
  PostDraft,
  Problem,
  PublishMedia,
  PublishResult,
  PublishInput,
  PublishedRef,
  SocialProvider,
} from '../social-provider.interface';
import { SandboxCredentialsDto, parseSandboxCredentials, parseStoredSandboxAccount } from './sandbox.credentials';
import { SANDBOX_DEFAULT_LIMITS, SANDBOX_DEFAULT_PROCESSING_SECONDS, sandboxLimits } from './sandbox.limits';
import { SANDBOX_OPTIONS_SCHEMA, SandboxOptions } from './sandbox.options';
import { SandboxMedia, SandboxTimeline } from './sandbox-timeline.port';

/** Content switches that make the sandbox fail on purpose (docs/guide.md section 11). */
export const SANDBOX_SWITCHES = {
  /** The first two attempts fail as temporarily unavailable; the third succeeds. */
  failTransient: '#fail-transient',
  /** Refused for good (CONTENT_REJECTED). */
  failPermanent: '#fail-permanent',
  /** The credentials are revoked: the target fails and the channel is disconnected. */
  revoke: '#revoke',
  /** The sandbox fails to process the post's video once received (VIDEO_PROCESSING_FAILED). */
  videoProcessingFail: '#video-processing-fail',
  /** The sandbox never finishes processing the post's video (the publisher's wait runs out). */
  videoProcessingStuck: '#video-processing-stuck',
} as const;
/** How often the sandbox tells the publisher to look again while it processes a video. */
const PROCESSING_POLL_MS = 1000;
const TRANSIENT_FAILURES = 2;

const DISABLED = 'The sandbox network is disabled on this server (SANDBOX_PROVIDER=false)';

export interface SandboxProviderOptions {
  /** SANDBOX_PROVIDER: when false, connecting, validating and publishing refuse. */
  enabled: boolean;
  /** Clock of the analytics figures (tests pass their own). */
  now?: () => Date;
}

/**
 * Engagement of a sandbox post: a pure function of the post's id and age, so every reader sees the
 * same figures at the same moment, and they grow over time (so `analytics.updated` fires).
 */
export function sandboxMetrics(postId: string, publishedAt: Date, now: Date): Metrics {
  const seed = createHash('sha256').update(postId).digest().readUInt32BE(0);
  const ageSeconds = Math.max(0, (now.getTime() - publishedAt.getTime()) / 1000);
  const likes = Math.floor(Math.sqrt(ageSeconds) * (1 + (seed % 4)));
  const reposts = Math.floor(likes / 3);
  const replies = Math.floor(likes / 5);
  const quotes = Math.floor(likes / 10);
  const impressions = likes * (10 + (seed % 20)) + (likes > 0 ? seed % 7 : 0);
  return {
    likes,
    reposts,
    replies,
    quotes,
    impressions,
    raw: { likes, reposts, replies, quotes, impressions, ageSeconds: Math.floor(ageSeconds) },
  };
}

/** Reads an attachment the way a network would: all of its bytes, hashed. */
async function receive(media: PublishMedia): Promise<SandboxMedia> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of media.open()) {
    const buf = chunk as Buffer;
    hash.update(buf);
    size += buf.length;
  }
  return {
    id: media.id,
    mimeType: media.mimeType,
    size,
    sha256: hash.digest('hex'),
    ...(isVideoMedia(media) ? { durationMs: media.durationMs ?? null } : {}),
  };
}

/** What a sandbox publication saved while its video was being processed (docs/adr/0023). */
interface ProcessingCheckpoint {
  /** The attachments as received: a poll publishes these, never receiving the bytes twice. */
  received: SandboxMedia[];
  /** When the simulated processing ends (ISO time). */
  readyAt: string;
}

function processingCheckpoint(state: Record<string, unknown> | null): ProcessingCheckpoint | null {
  if (!state || !Array.isArray(state.received) || typeof state.readyAt !== 'string') return null;
  return { received: state.received as SandboxMedia[], readyAt: state.readyAt };
}

/**
 * A social network inside the service: no account, no internet. Its "API" is the sandbox timeline
 * (a table of our own database), so the adapter's calls to it play the part of HTTP calls to a network.
 * Publishing is idempotent per idempotency key, like the real networks' adapters.
 */
export class SandboxProvider implements SocialProvider {
  readonly id = 'sandbox' as const;
  private readonly now: () => Date;

  constructor(
    private readonly timeline: SandboxTimeline,
    private readonly options: SandboxProviderOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  connect(credentials: unknown): Promise<ConnectedAccount> {
    if (!this.options.enabled) return Promise.reject(new InvalidCredentialsError(DISABLED));
    const given = parseSandboxCredentials(credentials);
    // Each connect is a new account: its timeline belongs to that channel alone.
    const accountId = randomUUID();
    const slug =
      given.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'account';
    return Promise.resolve({
      externalId: accountId,
      name: given.name,
      handle: `@${slug}@sandbox`,
      avatarUrl: null,
      profileUrl: null,
      limits: sandboxLimits(
        given.maxCharacters,
        given.maxMedia,
        given.threads,
        given.maxVideoSeconds,
        given.firstComment,
      ),
      credentials: { ...given, accountId },
    });
  }

  /** Revoking the sandbox account's authorization: the network forgets the account and its timeline. */
  async revokeAccess(credentials: Record<string, unknown>): Promise<void> {
    await this.timeline.forgetAccount(parseStoredSandboxAccount(credentials).accountId);
  }

  /** The text's length as validate() counts it against `maxCharacters` (the composer shows it as you type). */
  countCharacters(text: string): number {
    return countGraphemes(text);
  }

  validate(post: PostDraft, limits: ChannelLimits): Problem[] {
    if (!this.options.enabled) return [{ field: 'channelIds', message: DISABLED }];
    const problems = commonDraftProblems('The sandbox', post.content, post.media, limits);
    const length = this.countCharacters(post.content);
    if (length > limits.maxCharacters) {
      problems.push({
        field: 'content',
        message: `The sandbox allows at most ${limits.maxCharacters} characters (got ${length})`,
      });
    }
    return problems;
  }

  async publish(input: PublishInput<SandboxOptions>): Promise<PublishResult> {
    if (!this.options.enabled) throw new ContentRejectedError(DISABLED);
    const account = parseStoredSandboxAccount(input.credentials);
    const row = await this.timeline.attempt(account.accountId, input.idempotencyKey);
    if (row.publishedAt) return this.ref(row.id); // an earlier attempt got through: same post, not a second one
    if (input.content.includes(SANDBOX_SWITCHES.revoke)) {
      throw new CredentialsRevokedError('sandbox: #revoke: the credentials of this account were revoked', 401);
    }
    if (input.content.includes(SANDBOX_SWITCHES.failPermanent)) {
      throw new ContentRejectedError('sandbox: #fail-permanent: the post was refused for good', 422);
    }
    if (input.content.includes(SANDBOX_SWITCHES.failTransient) && row.attempts <= TRANSIENT_FAILURES) {
      throw new TransientProviderError(
        `sandbox: #fail-transient: temporarily unavailable (attempt ${row.attempts} of ${TRANSIENT_FAILURES + 1})`,
        503,
      );
    }
    const parent = input.replyTo?.parent.platformPostId ?? null;
    if (parent !== null && !(await this.timeline.find(account.accountId, parent))) {
      throw new ContentRejectedError(`sandbox: the post ${parent} to reply to is not on this account's timeline`, 404);
    }
    const processing = processingCheckpoint(input.checkpoint);
    let media: SandboxMedia[];
    if (processing) {
      media = processing.received;
    } else {
      media = [];
      for (const item of input.media) media.push(await receive(item));
    }
    const hasVideo = input.media.some((m) => isVideoMedia(m));
    const processingMs = (account.videoProcessingSeconds ?? SANDBOX_DEFAULT_PROCESSING_SECONDS) * 1000;
    if (hasVideo && processingMs > 0) {
      // Like the networks that process video after the upload: received once, then polled until ready.
      let readyAt = processing ? Date.parse(processing.readyAt) : NaN;
      if (!processing) {
        readyAt = this.now().getTime() + processingMs;
        await input.saveCheckpoint({ received: media, readyAt: new Date(readyAt).toISOString() });
      }
      if (input.content.includes(SANDBOX_SWITCHES.videoProcessingFail) && processing) {
        throw new VideoProcessingFailedError('sandbox: #video-processing-fail: the video could not be processed');
      }
      const left = readyAt - this.now().getTime();
      if (left > 0 || input.content.includes(SANDBOX_SWITCHES.videoProcessingStuck)) {
        throw new ProcessingPendingError(
          'sandbox: the video is still processing',
          Math.min(PROCESSING_POLL_MS, Math.max(left, PROCESSING_POLL_MS / 4)),
        );
      }
    }
    const options = {
      visibility: input.options?.visibility ?? 'public',
      contentWarning: input.options?.contentWarning ?? null,
    };
    const published = await this.timeline.publish(row.id, input.content, media, parent, options);
    return this.ref(published.id);
  }

  /**
   * A first comment: a reply to the post on its timeline, first among its replies. Idempotent per key
   * like a post, and the failure switches in the comment's text fail the comment alone.
   */
  async comment(input: CommentInput): Promise<PublishResult> {
    if (!this.options.enabled) throw new ContentRejectedError(DISABLED);
    const account = parseStoredSandboxAccount(input.credentials);
    const row = await this.timeline.attempt(account.accountId, input.idempotencyKey);
    if (row.publishedAt) return this.ref(row.id);
    if (input.content.includes(SANDBOX_SWITCHES.failPermanent)) {
      throw new ContentRejectedError('sandbox: #fail-permanent: the comment was refused for good', 422);
    }
    if (input.content.includes(SANDBOX_SWITCHES.failTransient) && row.attempts <= TRANSIENT_FAILURES) {
      throw new TransientProviderError(
        `sandbox: #fail-transient: temporarily unavailable (attempt ${row.attempts} of ${TRANSIENT_FAILURES + 1})`,
        503,
      );
    }
    const parent = input.post.platformPostId;
    if (!(await this.timeline.find(account.accountId, parent))) {
      throw new ContentRejectedError(
        `sandbox: the post ${parent} to comment on is not on this account's timeline`,
        404,
      );
    }
    const published = await this.timeline.publish(row.id, input.content, [], parent);
    return this.ref(published.id);
  }

  async fetchMetrics(credentials: Record<string, unknown>, ref: PublishedRef): Promise<MetricsResult> {
    if (!this.options.enabled) throw new ContentRejectedError(DISABLED);
    const account = parseStoredSandboxAccount(credentials);
    const post = await this.timeline.find(account.accountId, ref.platformPostId);
    if (!post?.publishedAt) throw new ContentRejectedError('sandbox: no such post on this account', 404);
    return { metrics: sandboxMetrics(post.id, post.publishedAt, this.now()) };
  }

  private ref(postId: string): PublishResult {
    return { platformPostId: postId, url: `sandbox:posts/${postId}` };
  }
}

/**
 * The sandbox as a plugin. Unlike networks reached over HTTP, its "API" is a table of our database:
 * the plugin injects its own `SandboxTimeline` port (bound by the sandbox feature that owns the
 * table, src/sandbox/) and declares the SANDBOX_PROVIDER switch.
 */
export const sandboxPlugin = defineProvider({
  id: 'sandbox',
  apiVersion: {
    pinned: 'built-in',
    source: 'this service (the sandbox network has no outside API)',
  },
  displayName: 'Sandbox',
  connectKind: 'credentials',
  credentials: SandboxCredentialsDto,
  defaultLimits: SANDBOX_DEFAULT_LIMITS,
  optionsSchema: SANDBOX_OPTIONS_SCHEMA,
  // The timeline keeps the bytes the network received, not their alt text.
  capabilities: { altText: false },
  settings: {
    enabled: setting.bool('SANDBOX_PROVIDER', {
      default: true,
      description:
        'the built-in sandbox network (docs/guide.md section 11); false refuses new sandbox channels and posts',
    }),
  },
  inject: [SandboxTimeline],
  create: ({ resolve, settings }) => new SandboxProvider(resolve(SandboxTimeline), { enabled: settings.enabled }),
});
