/** SQLSTATEs for which the whole statement or transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure

function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Runs a statement or transaction again when Postgres aborted it as a deadlock victim or a
 * serialization failure (at most `attempts` runs in all); other errors pass through at once.
 * `run` must be safe to repeat: a whole transaction, or a single statement outside one.
 */
export async function withDeadlockRetry<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      const state = sqlState(err);
      if (i >= attempts || state === undefined || !RETRYABLE.has(state)) throw err;
    }
  }
}
