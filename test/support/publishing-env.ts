/** Fast retry, reconcile and stall settings so publishing tests run in seconds. */
export const FAST_PUBLISHING_ENV = {
  PUBLISH_RETRY_DELAYS_MS: '200,200,200,200,200',
  PUBLISH_RECONCILE_SECONDS: '1',
  PUBLISH_CLAIM_SECONDS: '5',
  QUEUE_STALLED_INTERVAL_MS: '2000',
};

export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 20_000,
  stepMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last = await probe();
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`Timed out waiting; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, stepMs));
    last = await probe();
  }
  return last;
}
