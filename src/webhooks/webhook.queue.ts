import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';
import { boundedQueueCall, queueReady } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

/** The Bull queue of delivery attempts; owned by the webhooks module (nothing else touches it). */
export const WEBHOOK_QUEUE = 'webhooks';
export const DELIVER_JOB = 'deliver';

/** A job carries the delivery id only; the processor reads everything else from the database. */
export interface DeliverJobData {
  deliveryId: string;
}

/**
 * One job per attempt, with a deterministic id: enqueueing the same attempt twice (relay retry,
 * reconciler, a second worker) is a no-op while the job exists.
 */
export function deliverJobId(deliveryId: string, attempt: number): string {
  return `wh:${deliveryId}:${attempt}`;
}

export interface DueAttempt {
  deliveryId: string;
  /** The attempt the job will make (attempts so far + 1). */
  attempt: number;
  delayMs?: number;
}

function jobOptions(a: DueAttempt): JobOptions {
  return {
    jobId: deliverJobId(a.deliveryId, a.attempt),
    delay: a.delayMs && a.delayMs > 0 ? a.delayMs : undefined,
    // The database schedules retries, not Bull; a job that throws is gone and the reconciler re-creates it.
    attempts: 1,
    removeOnComplete: true,
    removeOnFail: true,
  };
}

/** The webhook delivery queue: the only webhooks file that knows Bull (see docs/adr/0009). */
@Injectable()
export class WebhookQueue {
  constructor(@InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliverJobData>) {}

  /** The queue's registration, imported by WebhooksModule. */
  static registration(): DynamicModule {
    return BullModule.registerQueue({ name: WEBHOOK_QUEUE });
  }

  /** True when Redis is connected, so adding jobs will not wait in the offline queue. */
  isReady(): boolean {
    return queueReady(this.queue);
  }

  /** True while the connection is still being set up (not yet a reason to report an outage). */
  isConnecting(): boolean {
    return ['wait', 'connecting', 'connect'].includes(this.queue.client.status);
  }

  /**
   * Adds one job per attempt, failing fast (instead of waiting in ioredis's offline queue) when Redis
   * is unreachable. A job added late after a timeout is harmless: the processor re-checks the database.
   */
  async enqueueAttempts(attempts: DueAttempt[], timeoutMs = 5_000): Promise<void> {
    if (attempts.length === 0) return;
    await boundedQueueCall(
      this.queue,
      'accept the delivery jobs',
      () =>
        this.queue.addBulk(
          attempts.map((a) => ({ name: DELIVER_JOB, data: { deliveryId: a.deliveryId }, opts: jobOptions(a) })),
        ),
      timeoutMs,
    );
  }

  /** Runs `handler` for delivery jobs, `concurrency` at a time, in this process. Resolves when processing stops. */
  process(concurrency: number, handler: (deliveryId: string) => Promise<unknown>): Promise<void> {
    return this.queue.process(DELIVER_JOB, concurrency, (job: Job<DeliverJobData>) => handler(job.data.deliveryId));
  }

  /** Stops taking new jobs in this process (jobs running here go on): the first step of the SIGTERM drain. */
  stopTaking(): Promise<void> {
    return stopTakingJobs(this.queue);
  }

  /** Stops taking jobs and resolves once the ones running here have finished (Bull's close waits for them). */
  close(): Promise<void> {
    return this.queue.close();
  }
}
