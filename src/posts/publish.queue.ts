import { createHash } from 'node:crypto';
import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Job, Queue } from 'bull';
import { publishingConfig } from '../config';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const PUBLISH_QUEUE = 'publish';
export const PUBLISH_JOB = 'publish-target';

/** One target a publish job names. */
export interface PublishJobTarget {
  targetId: string;
  publication: number;
}

/**
 * A job names one target (a delayed job, or a lone target due now) or, `targets`, a batch of targets
 * due now (docs/adr/0044): one Bull job and its Redis round trips for the batch instead of one each.
 */
export type PublishJobData = PublishJobTarget | { targets: PublishJobTarget[] };

/** Targets of one batch job: small enough that a burst still spreads over every worker's slots. */
export const PUBLISH_BATCH_TARGETS = 25;

export interface EnqueueableTarget {
  id: string;
  publication: number;
  attempts: number;
  dueAt: Date | null;
  /**
   * A poll of a network's processing (docs/adr: video pipeline): the attempt was given back, so the job
   * id also names the poll's time, unlike the job that is still running under the attempt's id.
   */
  poll?: boolean;
}

/**
 * Adding and cancelling publish jobs, bounded so a request never waits on Redis for long.
 * Jobs carry ids; the job id is deterministic, so enqueueing twice is a no-op.
 */
@Injectable()
export class PublishQueue {
  private readonly logger = new Logger('PublishQueue');

  constructor(@InjectQueue(PUBLISH_QUEUE) private readonly queue: Queue<PublishJobData>) {}

  /** The queue's registration, imported by PostsModule (stall detection from PUBLISH_* config). */
  static registration(): DynamicModule {
    return BullModule.registerQueueAsync({
      name: PUBLISH_QUEUE,
      inject: [publishingConfig.KEY],
      useFactory: (cfg: ConfigType<typeof publishingConfig>) => ({
        settings: { stalledInterval: cfg.stalledIntervalMs, lockDuration: cfg.stalledIntervalMs, maxStalledCount: 5 },
      }),
    });
  }

  static jobId(t: Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'> & Partial<EnqueueableTarget>): string {
    const base = `publish:${t.id}:${t.publication}:${t.attempts}`;
    return t.poll && t.dueAt ? `${base}:poll-${t.dueAt.getTime()}` : base;
  }

  /**
   * The id of a batch job: derived from its targets' job ids, so the same batch enqueued twice is one
   * job, and two batches sharing a target are two jobs (the claim in Postgres lets one of them take it).
   */
  static batchJobId(targets: EnqueueableTarget[]): string {
    const hash = createHash('sha256');
    for (const t of targets) hash.update(`${PublishQueue.jobId(t)}\n`);
    return `publish-batch:${hash.digest('base64url').slice(0, 22)}`;
  }

  /**
   * Adds (or keeps) the jobs of these targets, in one Redis round trip. A target due later gets a
   * delayed job of its own, whose deterministic id lets the reconciler enqueue it again without a
   * duplicate. Targets already due (a burst, a page of the reconciler, the channels of a post published
   * now) go in batch jobs of up to PUBLISH_BATCH_TARGETS: they run at once, so nothing is left for the
   * reconciler to duplicate. The reconciler itself passes `batch: false`: a target it finds due may
   * still wait in a backlog under its first job, and one job per target id adds it at most once however
   * many passes see it. Failures are logged: the reconciler catches up.
   */
  async enqueue(targets: EnqueueableTarget[], { batch = true }: { batch?: boolean } = {}): Promise<number> {
    const due = targets.filter((t) => t.dueAt);
    if (due.length === 0) return 0;
    const now = Date.now();
    const opts = { removeOnComplete: true, removeOnFail: true, attempts: 1 };
    const later = due.filter((t) => t.dueAt!.getTime() > now);
    const seen = new Set<string>();
    const dueNow = due.filter((t) => t.dueAt!.getTime() <= now && !seen.has(t.id) && seen.add(t.id));
    const batches: EnqueueableTarget[][] = [];
    const size = batch ? PUBLISH_BATCH_TARGETS : 1;
    for (let i = 0; i < dueNow.length; i += size) batches.push(dueNow.slice(i, i + size));
    const single = (t: EnqueueableTarget) => ({
      name: PUBLISH_JOB,
      data: { targetId: t.id, publication: t.publication },
      opts: { ...opts, jobId: PublishQueue.jobId(t), delay: Math.max(0, t.dueAt!.getTime() - now) },
    });
    try {
      await boundedQueueCall(this.queue, 'accept the publish jobs', () =>
        this.queue.addBulk([
          ...later.map(single),
          ...batches.map((batch) =>
            batch.length === 1
              ? single(batch[0])
              : {
                  name: PUBLISH_JOB,
                  data: { targets: batch.map((t) => ({ targetId: t.id, publication: t.publication })) },
                  opts: { ...opts, jobId: PublishQueue.batchJobId(batch), delay: 0 },
                },
          ),
        ]),
      );
      return due.length;
    } catch (err) {
      this.logger.warn(
        `Could not enqueue ${due.length} publish job(s), the reconciler will: ${(err as Error).message}`,
      );
      return 0;
    }
  }

  /**
   * Removes waiting/delayed jobs of these targets. Best effort and bounded: a job left behind (Redis
   * away or slow) finds its target no longer due when it runs, and does nothing.
   */
  async cancel(targets: Array<Pick<EnqueueableTarget, 'id' | 'publication' | 'attempts'>>): Promise<void> {
    if (targets.length === 0) return;
    const removeAll = () =>
      Promise.all(
        targets.map(async (t) => {
          const job = await this.queue.getJob(PublishQueue.jobId(t));
          if (job && !(await job.isActive())) await job.remove();
        }),
      );
    try {
      await boundedQueueCall(this.queue, 'remove the publish jobs', removeAll);
    } catch (err) {
      this.logger.warn(`Left ${targets.length} stale publish job(s) in the queue: ${(err as Error).message}`);
    }
  }

  /** Stops taking new jobs in this process (jobs running here go on): the first step of the SIGTERM drain. */
  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  /** Stops taking jobs and resolves once the ones running here have finished (Bull's close waits for them). */
  close(): Promise<void> {
    return this.queue.close();
  }

  /** Runs `handler` for publish jobs, `concurrency` jobs at a time, in this process, with the targets each names. */
  process(concurrency: number, handler: (targets: PublishJobTarget[], jobId: string) => Promise<unknown>): void {
    void this.queue.process(PUBLISH_JOB, concurrency, (job: Job<PublishJobData>) =>
      handler(targetsOf(job.data), String(job.id)),
    );
  }

  /** The targets of the jobs waiting for their time (delayed), for tests and operators. */
  async delayedJobs(): Promise<PublishJobTarget[]> {
    return (await this.queue.getDelayed()).flatMap((job) => targetsOf(job.data));
  }
}

function targetsOf(data: PublishJobData): PublishJobTarget[] {
  return 'targets' in data ? data.targets : [{ targetId: data.targetId, publication: data.publication }];
}
