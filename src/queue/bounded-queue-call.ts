import type { Queue } from 'bull';

/**
 * How long a request waits on a Bull call before it gives up and leaves the work to a reconciler.
 * Bull's connections queue commands while Redis is away (they must, for the workers), so every
 * request-path call goes through `boundedQueueCall` instead of awaiting Bull directly.
 */
export const QUEUE_CALL_TIMEOUT_MS = 1_000;

/** Redis is not connected or did not answer in time; the caller leaves its work for later. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

/** True when the queue's Redis connection is up, so a call will not wait in the offline queue. */
export function queueReady(queue: Queue): boolean {
  return queue.client.status === 'ready';
}

/**
 * Runs `call` only while the queue's Redis connection is up, and stops waiting after `timeoutMs`.
 * Throws `QueueUnavailableError` otherwise. A call that completes after the timeout is harmless by
 * design: jobs carry deterministic ids and processors re-check the database before acting.
 */
export async function boundedQueueCall<T>(
  queue: Queue,
  what: string,
  call: () => Promise<T>,
  timeoutMs = QUEUE_CALL_TIMEOUT_MS,
): Promise<T> {
  if (!queueReady(queue)) throw new QueueUnavailableError(`Redis is not connected (${queue.client.status})`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new QueueUnavailableError(`Redis did not ${what} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const pending = call();
  pending.catch(() => undefined);
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
