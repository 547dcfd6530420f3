import type { JobOptions, Queue } from 'bull';

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

/** Redis is not connected or did not accept the jobs in time; the caller leaves its work for later. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

/** True when the queue's Redis connection is up, so adding jobs will not wait in an offline queue. */
export function queueReady(queue: Queue): boolean {
  return queue.client.status === 'ready';
}

/**
 * Adds one job per attempt, failing fast (instead of waiting in ioredis's offline queue) when Redis
 * is unreachable. A job added late after a timeout is harmless: the processor re-checks the database.
 */
export async function enqueueAttempts(queue: Queue, attempts: DueAttempt[], timeoutMs = 5_000): Promise<void> {
  if (attempts.length === 0) return;
  if (!queueReady(queue)) throw new QueueUnavailableError(`Redis is not connected (${queue.client.status})`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailableError(`Redis did not accept the delivery jobs within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const add = queue.addBulk(
    attempts.map((a) => ({ name: DELIVER_JOB, data: { deliveryId: a.deliveryId }, opts: jobOptions(a) })),
  );
  add.catch(() => undefined);
  try {
    await Promise.race([add, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
