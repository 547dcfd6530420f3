import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { Channel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { publishingConfig } from '../config';
import { videoConfig, type VideoConfig } from '../config/video.config';
import { EventsService } from '../events/events.service';
import { ChannelCredentialsService } from '../oauth/channel-credentials.service';
import {
  ApiVersionRetiredError,
  CredentialsRevokedError,
  ProcessingPendingError,
  ProviderError,
  TransientProviderError,
} from '../providers/provider.errors';
import { ProviderRegistry } from '../providers/provider.registry';
import { PublishMedia, PublishResult, ThreadPost } from '../providers/social-provider.interface';
import { PostDto } from './dto/post.dto';
import { POST_MEDIA, PostMediaPort } from './post-media.port';
import { publishMediaOf, type VideoWaitOfAttempt } from './publish-media';
import { PostTargetPart } from './post-target-part.entity';
import { PostTargetCheckpointsStore } from './post-target-checkpoints.store';
import { PostTargetPartsStore } from './post-target-parts.store';
import { PostTarget, TargetErrorCode } from './post-target.entity';
import { Post } from './post.entity';
import { FirstCommentQueue } from './first-comment.queue';
import { PublishQueue } from './publish.queue';
import { MicroBatcher } from '../common/batching/micro-batcher';
import { withDeadlockRetry } from '../database/deadlock-retry';
import { Transactions } from '../database/transactions';
import { ClaimRequest, PublishingStore, TargetOutcome } from './publishing.store';
import { OutcomeMetrics } from '../metrics/outcome-metrics.service';

/**
 * What an attempt comes to. `credentials`: session tokens the network refreshed on the way (a thread
 * may refresh them on one part and fail on a later one), stored whatever the outcome.
 */
type Outcome = (
  | { kind: 'published'; result: PublishResult }
  | { kind: 'failed'; code: TargetErrorCode; message: string; revoked?: boolean }
  | { kind: 'retry'; code: TargetErrorCode; message: string; retryAfterMs?: number }
  /** The network is processing (a video): poll again at `checkAfterMs` with a delayed job, the worker released. */
  | { kind: 'wait'; message: string; checkAfterMs: number }
) & { credentials?: Record<string, unknown> };

/**
 * Kept in a part's checkpoint beside the adapter's own state: when the network started processing
 * (ISO time), so the total wait is bounded across polls, crashes and workers.
 */
export const WAITING_SINCE = 'waitingSince';
/** Polls are never closer than this, whatever the network hints. */
const MIN_POLL_MS = 250;

/** A thread's job lost its claim to another job between two parts: that job settles the target. */
const CLAIM_LOST = Symbol('claim lost');

interface Claimed {
  target: PostTarget;
  post: Post;
  channel: Channel;
  /** Thread parts already published on this target (none for a post without a thread). */
  parts: PostTargetPart[];
  /** How many targets the post has. */
  targetCount: number;
  /** What the adapter saved on earlier attempts of this publication, by part index (docs/adr/0023). */
  checkpoints: Map<number, Record<string, unknown>>;
}

/** One part to publish: index 0 is the post's own content, i is `thread[i - 1]`. */
interface Part {
  index: number;
  content: string;
  mediaIds: string[];
}

interface Settlement {
  claimed: Claimed;
  outcome: Outcome;
}

/** What the target row becomes for an outcome (the batched outcome UPDATE). */
type OutcomeRow = Omit<TargetOutcome, 'targetId' | 'publication'>;

/** Largest batch of claims or outcomes written by one statement / transaction. */
const MAX_BATCH = 100;

/**
 * Publishes one target. Postgres is the truth: the target is claimed with a conditional UPDATE
 * (so a stale, duplicate or early job does nothing), the provider is called with an idempotency
 * key stable across retries, and the outcome, the post's final state and its event are written
 * in one transaction.
 *
 * Each job publishes its own target, but the database work of concurrent jobs is batched: claims
 * of the jobs that start together are one statement, and outcomes that arrive together are one
 * transaction of a few statements (see ADR 0007, Performance). A batch's failure fails its jobs
 * only; their targets stay claimed until the claim expires and the reconciler re-enqueues them.
 */
@Injectable()
export class PublisherService {
  private readonly logger = new Logger('Publisher');
  private readonly claims: MicroBatcher<ClaimRequest, Claimed | null>;
  private readonly settlements: MicroBatcher<Settlement, void>;

  constructor(
    private readonly store: PublishingStore,
    private readonly transactions: Transactions,
    private readonly channels: ChannelsService,
    private readonly credentials: ChannelCredentialsService,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly queue: PublishQueue,
    @Inject(POST_MEDIA) private readonly media: PostMediaPort,
    @Inject(publishingConfig.KEY) private readonly cfg: ConfigType<typeof publishingConfig>,
    private readonly outcomes: OutcomeMetrics,
    private readonly parts: PostTargetPartsStore,
    private readonly checkpoints: PostTargetCheckpointsStore,
    @Inject(videoConfig.KEY) private readonly video: VideoConfig,
    private readonly comments: FirstCommentQueue,
  ) {
    const batching = { maxBatch: MAX_BATCH, maxInFlight: cfg.batchesInFlight };
    this.claims = new MicroBatcher((r) => this.claimBatch(r), batching);
    this.settlements = new MicroBatcher((s) => this.recordBatch(s), batching);
  }

  async publishTarget(targetId: string, publication: number, jobId: string): Promise<void> {
    const claimed = await this.claims.push({ targetId, publication, jobId });
    if (!claimed) return;
    const wait = this.videoWaitOf(claimed);
    const outcome = await this.attempt(claimed, jobId, wait);
    if (outcome === CLAIM_LOST) return;
    await this.settlements.push({ claimed, outcome });
    this.outcomes.recordPublish(claimed.channel.provider, outcome.kind);
    if ((wait.asked || wait.waited) && (outcome.kind === 'published' || outcome.kind === 'failed')) {
      // A conversion made for this target alone stops now rather than at the end of its wait.
      await this.media
        .releaseVideoWaits(targetId)
        .catch((err: Error) =>
          this.logger.warn({ msg: 'Could not release the video conversions of a target', targetId, err: err.message }),
        );
    }
  }

  /**
   * The target as a waiter for video conversions: until the end of its wait for processing (from the
   * earliest wait its parts began, else from now), so a conversion never runs past what it waits.
   */
  private videoWaitOf(claimed: Claimed): VideoWaitOfAttempt {
    const began = [...claimed.checkpoints.values()]
      .map((state) => (typeof state[WAITING_SINCE] === 'string' ? Date.parse(state[WAITING_SINCE]) : NaN))
      .filter((t) => Number.isFinite(t));
    const since = began.length > 0 ? Math.min(...began) : Date.now();
    return {
      waiter: claimed.target.id,
      until: new Date(since + this.video.processingMaxWaitMs),
      asked: false,
      waited: began.length > 0,
    };
  }

  /**
   * One statement for a batch of jobs: takes each target if it is due and not held by another live
   * job, moves scheduled posts to `publishing`, and returns the targets with their post and channel.
   * A job gets its target only if the row now carries its job id (two jobs of one target: one wins).
   */
  private async claimBatch(requests: ClaimRequest[]): Promise<Array<Claimed | null>> {
    const claimed = await this.store.claim(requests, this.cfg.claimMs);
    // The channels table belongs to the channels module: one read for the batch, through its service.
    const channels = await this.channels.findByIds([...new Set(claimed.map((c) => c.target.channelId))]);
    const byJob = new Map<string, Claimed>();
    for (const { target, post, parts, checkpoints, targetCount } of claimed) {
      const channel = channels.get(target.channelId);
      if (channel) {
        byJob.set(`${target.id}:${target.claimJobId}`, { target, post, channel, parts, checkpoints, targetCount });
      }
    }
    return requests.map((r) => byJob.get(`${r.targetId}:${r.jobId}`) ?? null);
  }

  private async attempt(
    claimed: Claimed,
    jobId: string,
    wait: VideoWaitOfAttempt,
  ): Promise<Outcome | typeof CLAIM_LOST> {
    const { post, channel, target } = claimed;
    try {
      // OAuth networks: an access token about to expire is refreshed first, once per channel.
      const credentials = await this.credentials.open(channel);
      if (!credentials) {
        return { kind: 'failed', code: 'CHANNEL_DISCONNECTED', message: `Channel ${channel.handle} is disconnected` };
      }
      // The first part is this channel's own content and media where the post overrides them for it.
      const first = {
        content: target.contentOverride ?? post.content,
        mediaIds: target.mediaIdsOverride ?? post.mediaIds,
      };
      const parts: Part[] = [
        { index: 0, ...first },
        ...post.thread.map((p, i) => ({ index: i + 1, content: p.content, mediaIds: p.mediaIds })),
      ];
      const media = await this.mediaOf(post.workspaceId, parts, wait);
      if (!media) {
        return { kind: 'failed', code: 'MEDIA_REJECTED', message: 'A media item of the post no longer exists' };
      }
      // A thread, or a target that published parts of one before its post was edited into a single post.
      if (parts.length > 1 || claimed.parts.length > 0)
        return await this.publishThread(claimed, jobId, credentials, parts, media);
      const result = await this.providers.get(channel.provider).publish({
        credentials,
        content: first.content,
        media: media[0],
        options: target.options ?? {},
        idempotencyKey: `${target.id}:${target.publication}`,
        attempt: target.attempts,
        createdAt: target.publicationStartedAt ?? post.createdAt,
        ...this.checkpointOf(claimed, jobId, 0),
      });
      return { kind: 'published', result };
    } catch (err) {
      if (err instanceof ProcessingPendingError) return this.waitOutcome(claimed, jobId, 0, err);
      return this.classify(err);
    }
  }

  /**
   * The network is still processing what a part sent (docs/adr: video pipeline): poll again later
   * with a delayed job, unless the total wait since processing began (kept in the part's checkpoint,
   * so it survives crashes and workers) is over VIDEO_PROCESSING_MAX_WAIT_SECONDS, which fails the
   * target with VIDEO_PROCESSING_TIMEOUT, not retried.
   */
  private async waitOutcome(
    claimed: Claimed,
    jobId: string,
    index: number,
    err: ProcessingPendingError,
  ): Promise<Exclude<Outcome, { kind: 'published' }>> {
    const state = claimed.checkpoints.get(index) ?? {};
    const since = typeof state[WAITING_SINCE] === 'string' ? Date.parse(state[WAITING_SINCE]) : NaN;
    const started = Number.isFinite(since) ? since : Date.now();
    const waited = Date.now() - started;
    const max = this.video.processingMaxWaitMs;
    if (waited >= max) {
      return {
        kind: 'failed',
        code: 'VIDEO_PROCESSING_TIMEOUT',
        message: `The network was still processing the video after ${Math.round(waited / 1000)} s (the limit is ${Math.round(max / 1000)} s, VIDEO_PROCESSING_MAX_WAIT_SECONDS): ${err.message}`,
      };
    }
    if (!Number.isFinite(since)) {
      await this.checkpoints.save(
        claimed.target.id,
        claimed.target.publication,
        index,
        { ...state, [WAITING_SINCE]: new Date(started).toISOString() },
        jobId,
        this.cfg.claimMs,
      );
    }
    const checkAfterMs = Math.min(Math.max(MIN_POLL_MS, err.checkAfterMs), Math.max(MIN_POLL_MS, max - waited));
    return { kind: 'wait', message: err.message, checkAfterMs };
  }

  /** The media of each part, in order; null when an item no longer exists. One read for the whole post. */
  private async mediaOf(
    workspaceId: string,
    parts: Part[],
    wait: VideoWaitOfAttempt,
  ): Promise<PublishMedia[][] | null> {
    const ids = [...new Set(parts.flatMap((p) => p.mediaIds))];
    if (ids.length === 0) return parts.map(() => []);
    const found = new Map((await this.media.findMany(workspaceId, ids)).map((m) => [m.id, m]));
    if (ids.some((id) => !found.has(id))) return null;
    return parts.map((p) => p.mediaIds.map((id) => publishMediaOf(this.media, found.get(id)!, wait)));
  }

  /**
   * Publishes the parts of a thread not yet published on this target, in order, each as a reply to the
   * one before. Each accepted part is recorded (and the claim extended) before the next is sent, so a
   * failure anywhere leaves exactly the published parts recorded, and the retry starts after them. Each
   * part has its own idempotency key (the target's key and the part's index), so a part whose outcome
   * was unknown is found again rather than posted twice.
   */
  private async publishThread(
    claimed: Claimed,
    jobId: string,
    credentials: Record<string, unknown>,
    parts: Part[],
    media: PublishMedia[][],
  ): Promise<Outcome | typeof CLAIM_LOST> {
    const { post, channel, target } = claimed;
    const provider = this.providers.get(channel.provider);
    const recorded = new Map(claimed.parts.map((p) => [p.index, p]));
    const started = target.publicationStartedAt ?? post.createdAt;
    let current = credentials;
    let refreshed: Record<string, unknown> | undefined;
    let root: ThreadPost | undefined = recorded.get(0);
    let parent: ThreadPost | undefined;
    let firstTry = true;
    for (const part of parts) {
      const done = recorded.get(part.index);
      if (done) {
        parent = done;
        continue; // on the network already: never posted twice
      }
      let result: PublishResult;
      try {
        result = await provider.publish({
          credentials: current,
          content: part.content,
          media: media[part.index],
          options: target.options ?? {},
          idempotencyKey: partKey(target, part.index),
          // Only the part this attempt starts with may have reached the network before; later ones are first tries.
          attempt: firstTry ? target.attempts : 1,
          // Distinct and ordered per part, and stable across retries (Bluesky's createdAt and record key).
          createdAt: new Date(started.getTime() + part.index),
          replyTo: root && parent ? { root, parent } : undefined,
          ...this.checkpointOf(claimed, jobId, part.index),
        });
      } catch (err) {
        const outcome =
          err instanceof ProcessingPendingError
            ? await this.waitOutcome(claimed, jobId, part.index, err)
            : this.classify(err);
        return {
          ...outcome,
          message: `Part ${part.index + 1} of ${parts.length}: ${outcome.message}`,
          credentials: refreshed,
        };
      }
      firstTry = false;
      if (result.credentials) current = refreshed = result.credentials;
      const published: ThreadPost = {
        platformPostId: result.platformPostId,
        url: result.url,
        replyRef: result.replyRef ?? null,
      };
      const held = await this.parts.record(target.id, jobId, { index: part.index, ...published }, this.cfg.claimMs);
      if (!held) return CLAIM_LOST;
      root ??= published;
      parent = published;
    }
    if (!root) return { kind: 'failed', code: 'INTERNAL', message: 'The thread has no first part' };
    return {
      kind: 'published',
      result: {
        platformPostId: root.platformPostId,
        url: root.url,
        credentials: refreshed,
        replyRef: root.replyRef ?? undefined,
      },
    };
  }

  /**
   * The checkpoint of one part for the adapter: what an earlier attempt of this publication saved,
   * and how to save a new one (in Postgres before it resolves, extending the claim).
   */
  private checkpointOf(
    claimed: Claimed,
    jobId: string,
    index: number,
  ): { checkpoint: Record<string, unknown> | null; saveCheckpoint: (state: Record<string, unknown>) => Promise<void> } {
    const { target } = claimed;
    return {
      checkpoint: claimed.checkpoints.get(index) ?? null,
      saveCheckpoint: async (given) => {
        // The start of a processing wait stays with the part whatever the adapter saves.
        const since = claimed.checkpoints.get(index)?.[WAITING_SINCE];
        const state = since === undefined ? given : { ...given, [WAITING_SINCE]: since };
        await this.checkpoints.save(target.id, target.publication, index, state, jobId, this.cfg.claimMs);
        claimed.checkpoints.set(index, state);
      },
    };
  }

  private classify(err: unknown): Exclude<Outcome, { kind: 'published' }> {
    if (err instanceof CredentialsRevokedError) {
      return { kind: 'failed', code: 'CREDENTIALS_REVOKED', message: err.message, revoked: true };
    }
    if (err instanceof TransientProviderError) {
      const retryAfterMs = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
      return { kind: 'retry', code: err.code, message: err.message, retryAfterMs };
    }
    if (err instanceof ApiVersionRetiredError) {
      return { kind: 'failed', code: 'API_VERSION_RETIRED', message: err.message };
    }
    if (err instanceof ProviderError) {
      const code: TargetErrorCode =
        err.code === 'MEDIA_REJECTED' || err.code === 'VIDEO_PROCESSING_FAILED' ? err.code : 'CONTENT_REJECTED';
      return { kind: 'failed', code, message: err.message };
    }
    this.logger.error({
      msg: 'Unexpected publish failure',
      err: (err as Error)?.message,
      stack: (err as Error)?.stack,
    });
    return { kind: 'retry', code: 'INTERNAL', message: 'Internal error while publishing; will retry' };
  }

  /** What the target row becomes for an outcome (a transient failure with attempts left goes back to pending). */
  private outcomeRow(target: PostTarget, outcome: Outcome): OutcomeRow {
    if (outcome.kind === 'published') {
      const { platformPostId, url, replyRef } = outcome.result;
      return {
        status: 'published',
        platformPostId,
        url,
        dueAt: null,
        errorCode: null,
        errorMessage: null,
        replyRef: replyRef ?? null,
      };
    }
    if (outcome.kind === 'wait') {
      const dueAt = new Date(Date.now() + outcome.checkAfterMs);
      return {
        status: 'pending',
        platformPostId: null,
        url: null,
        dueAt,
        errorCode: null,
        errorMessage: outcome.message,
        refundAttempt: true,
        replyRef: null,
      };
    }
    const { code, message } = outcome;
    if (outcome.kind === 'retry' && target.attempts < this.cfg.retryDelaysMs.length + 1) {
      const delay = Math.max(this.cfg.retryDelaysMs[target.attempts - 1] ?? 0, outcome.retryAfterMs ?? 0);
      const dueAt = new Date(Date.now() + delay);
      const errorMessage = message;
      return {
        status: 'pending',
        platformPostId: null,
        url: null,
        dueAt,
        errorCode: code,
        errorMessage,
        replyRef: null,
      };
    }
    const failed = { platformPostId: null, url: null, dueAt: null, errorCode: code, errorMessage: message };
    return { status: 'failed', ...failed, replyRef: null };
  }

  /**
   * Records a batch of outcomes. Those of a post's only target, with nothing else to write (no thread,
   * no credentials the network refreshed or revoked), are one statement for the lot: the targets, the
   * posts they settle and the posts' events (recordAlone, docs/adr/0044). The others are one transaction:
   * every target's new state in one UPDATE, the channel side effects, then the posts now complete settle.
   */
  private async recordBatch(settlements: Settlement[]): Promise<void[]> {
    const rows = settlements.map((s) => this.outcomeRow(s.claimed.target, s.outcome));
    const alone = settlements.flatMap((s, i) => (this.settlesAlone(s) ? [i] : []));
    const shared = settlements.flatMap((s, i) => (this.settlesAlone(s) ? [] : [i]));
    if (alone.length) {
      await this.recordAlone(
        alone.map((i) => settlements[i]),
        alone.map((i) => rows[i]),
      );
    }
    const disconnected = shared.length
      ? await this.recordShared(
          shared.map((i) => settlements[i]),
          shared.map((i) => rows[i]),
        )
      : new Set<string>();
    settlements.forEach((s, i) => this.logOutcome(s, rows[i], disconnected));
    const retries = settlements.flatMap((s, i) =>
      rows[i].status === 'pending'
        ? [
            {
              ...s.claimed.target,
              dueAt: rows[i].dueAt,
              ...(rows[i].refundAttempt ? { attempts: s.claimed.target.attempts - 1, poll: true } : {}),
            },
          ]
        : [],
    );
    if (retries.length) await this.queue.enqueue(retries);
    // First comments are due once their target is published: enqueued after the commit (docs/adr/0035).
    const commentsDue = settlements.flatMap((s, i) =>
      rows[i].status === 'published' && s.claimed.target.firstCommentStatus === 'pending'
        ? [{ ...s.claimed.target, attempts: s.claimed.target.firstCommentAttempts, dueAt: null }]
        : [],
    );
    if (commentsDue.length) await this.comments.enqueue(commentsDue);
    return settlements.map(() => undefined);
  }

  /** Whether an outcome can be recorded by recordAlone: its post's only target, nothing else to write. */
  private settlesAlone({ claimed, outcome }: Settlement): boolean {
    const refreshed = outcome.kind === 'published' ? outcome.result.credentials : outcome.credentials;
    const revoked = outcome.kind === 'failed' && outcome.revoked === true;
    return (
      claimed.targetCount === 1 &&
      claimed.post.thread.length === 0 &&
      claimed.parts.length === 0 &&
      !refreshed &&
      !revoked
    );
  }

  /**
   * One statement: the targets' new state, the posts a final outcome settles and their events. The event
   * of each post is built here, from the rows the claim read and the outcome, as the statement writes
   * them (at the same time `at`); the statement records only the events of the posts it settled. A post
   * that was expected to settle and did not (it gained a target meanwhile) is settled the shared way.
   */
  private async recordAlone(settlements: Settlement[], rows: OutcomeRow[]): Promise<void> {
    const at = new Date();
    const events = settlements.flatMap(({ claimed }, i) => {
      const row = rows[i];
      if (row.status === 'pending') return [];
      const published = row.status === 'published';
      const post = Object.assign(new Post(), claimed.post, {
        status: row.status,
        publishedAt: published ? at : null,
        updatedAt: at,
      });
      const target = Object.assign(new PostTarget(), claimed.target, {
        status: row.status,
        platformPostId: published ? row.platformPostId : claimed.target.platformPostId,
        url: published ? row.url : claimed.target.url,
        publishedAt: published ? at : claimed.target.publishedAt,
        replyRef: published ? row.replyRef : claimed.target.replyRef,
        dueAt: row.dueAt ?? claimed.target.dueAt,
        errorCode: row.errorCode,
        errorMessage: row.errorMessage,
        claimJobId: null,
        claimedUntil: null,
        updatedAt: at,
      });
      return [
        {
          key: post.id,
          type: published ? ('post.published' as const) : ('post.failed' as const),
          workspaceId: post.workspaceId,
          data: PostDto.from(post, [target], claimed.parts),
        },
      ];
    });
    const { applied, settled } = await this.store.recordAlone(
      settlements.map((s, i) => ({
        targetId: s.claimed.target.id,
        publication: s.claimed.target.publication,
        ...rows[i],
      })),
      at,
      (on, change) => this.events.recordWith<{ applied: string[]; settled: string[] }>(on, change, events),
    );
    const written = new Set(applied);
    const done = new Set(settled);
    const missed = settlements.flatMap(({ claimed }, i) =>
      rows[i].status !== 'pending' && written.has(claimed.target.id) && !done.has(claimed.post.id)
        ? [claimed.post.id]
        : [],
    );
    if (missed.length) {
      await withDeadlockRetry(() =>
        this.transactions.run(async (em) => this.settle(em, await this.store.recordOutcomes(em, [], missed.sort()))),
      );
    }
  }

  /**
   * One transaction for a batch of outcomes: every target's new state in one UPDATE, the channel side
   * effects (refreshed or revoked credentials), then the posts that are now complete settle. Returns the
   * channels it disconnected.
   */
  private async recordShared(settlements: Settlement[], rows: OutcomeRow[]): Promise<Set<string>> {
    const postIds = [...new Set(settlements.map((s) => s.claimed.post.id))];
    /** Channels this batch disconnected, for the log once committed (reset on a deadlock retry). */
    let disconnected = new Set<string>();
    await withDeadlockRetry(() =>
      this.transactions.run(async (em) => {
        disconnected = new Set<string>();
        // The targets' new state, and the lock on their posts (in id order) for the settle below.
        const locked = await this.store.recordOutcomes(
          em,
          settlements.map((s, i) => ({
            targetId: s.claimed.target.id,
            publication: s.claimed.target.publication,
            ...rows[i],
          })),
          postIds,
        );
        for (const { claimed, outcome } of settlements) {
          const refreshed = outcome.kind === 'published' ? outcome.result.credentials : outcome.credentials;
          if (outcome.kind === 'failed' && outcome.revoked) {
            if (await this.channels.disconnectInTransaction(em, claimed.channel.id, 'credentials_revoked')) {
              disconnected.add(claimed.channel.id);
            }
          } else if (refreshed) {
            await this.channels.updateCredentials(claimed.channel, refreshed, em);
          }
        }
        await this.settle(em, locked);
      }),
    );
    return disconnected;
  }

  /**
   * One log line per committed outcome that needs a person's attention: a target that failed (with the
   * network's reason), a retry scheduled, a channel the network disconnected. Ids and reasons only: never
   * content or credentials. A publication that succeeded is counted in the metrics, not logged.
   */
  private logOutcome({ claimed, outcome }: Settlement, row: OutcomeRow, disconnected: Set<string>): void {
    const { target, post, channel } = claimed;
    const ids = {
      postId: post.id,
      targetId: target.id,
      channelId: channel.id,
      workspaceId: post.workspaceId,
      provider: channel.provider,
      attempt: target.attempts,
    };
    if (row.status === 'failed') {
      this.logger.warn({ msg: 'Publication failed', ...ids, code: row.errorCode, reason: row.errorMessage });
    } else if (row.status === 'pending' && row.dueAt) {
      this.logger.log({
        msg: 'Publication retry scheduled',
        ...ids,
        retryAt: row.dueAt.toISOString(),
        retryInMs: Math.max(0, row.dueAt.getTime() - Date.now()),
        code: row.errorCode,
        reason: row.errorMessage,
      });
    }
    // Once per channel, though several of the batch's targets may have found it revoked.
    if (outcome.kind === 'failed' && disconnected.delete(channel.id)) {
      this.channels.logDisconnectedByNetwork(channel, 'publish', outcome.message);
    }
  }

  /**
   * Posts (locked by the caller) with no target left pending or publishing become `published`
   * (all targets published) or `failed`, and each records its one event of this publication.
   * The lock was taken by an earlier statement, so this one runs on a fresh snapshot that sees
   * every concurrent outcome committed before the lock was granted: exactly one of the concurrent
   * last targets settles its post.
   */
  private async settle(em: EntityManager, lockedPostIds: string[]): Promise<void> {
    const settled = await this.store.settle(em, lockedPostIds);
    await this.events.recordMany(
      em,
      settled.map(({ post, targets, parts }) => ({
        type: post.status === 'published' ? 'post.published' : 'post.failed',
        workspaceId: post.workspaceId,
        data: PostDto.from(post, targets, parts),
      })),
    );
  }
}

/**
 * The idempotency key of one part of a thread: the target's key for the first part (the same as for a
 * post without a thread), the target's key and the part's index for the others.
 */
function partKey(target: PostTarget, index: number): string {
  const key = `${target.id}:${target.publication}`;
  return index === 0 ? key : `${key}:part-${index}`;
}
