import type { Queue } from 'bull';
import type Redis from 'ioredis';

/**
 * Stops this process taking new jobs from `queue`; jobs already running here go on.
 *
 * Bull's local pause sends QUIT on the connection that waits in BRPOPLPUSH for the next job, and QUIT
 * queues behind that blocking call: Bull gives up after 500 ms and disconnects. Ending the blocked
 * connection first does what Bull does after those 500 ms, at once (each worker queue used to add half
 * a second to every shutdown). A job id the server moved to the active list just as the connection
 * closed has no lock and is taken again by Bull's stalled-job check, as after a crash; the database
 * claim keeps the work from running twice.
 */
export function stopTakingJobs(queue: Queue): Promise<void> {
  const bull = queue as Queue & { bclientInitialized?: boolean; bclient: Redis };
  // `bclient` is created on first access: touch it only when the queue already has one.
  if (bull.bclientInitialized && bull.bclient.status === 'ready') bull.bclient.disconnect();
  return queue.pause(true, true);
}
