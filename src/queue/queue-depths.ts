import { getQueueToken } from '@nestjs/bull';
import type { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { boundedQueueCall } from './bounded-queue-call';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/**
 * Job counts per state of the named queues this process registered (others are skipped), each read
 * bounded like any request-path Redis call; a queue whose Redis does not answer is left out.
 */
export async function readQueueDepths(
  moduleRef: ModuleRef,
  names: readonly string[],
): Promise<Array<{ queue: string; counts: Record<QueueState, number> }>> {
  const found = names.flatMap((name) => {
    try {
      return [{ name, queue: moduleRef.get<Queue>(getQueueToken(name), { strict: false }) }];
    } catch {
      return [];
    }
  });
  const results = await Promise.all(
    found.map(async ({ name, queue }) => {
      const counts = await boundedQueueCall(queue, 'count jobs', () => queue.getJobCounts()).catch(() => null);
      if (!counts) return null;
      const byState = Object.fromEntries(QUEUE_STATES.map((s) => [s, counts[s] ?? 0])) as Record<QueueState, number>;
      return { queue: name, counts: byState };
    }),
  );
  return results.filter((r): r is { queue: string; counts: Record<QueueState, number> } => r !== null);
}
