import { SocialPublishingError, parseRetryAfter } from './errors';

/** The rate-limit headers of the last answer: the key's rate, what is left, when the bucket is full again. */
export interface RateLimit {
  /** Requests per minute of the key. */
  limit: number;
  /** Whole requests that can be made right now. */
  remaining: number;
  /** Unix time in seconds at which the bucket is full again. */
  reset: number;
  /** Burst size of the key. */
  burst: number;
}

export interface TransportOptions {
  fetch: (request: Request) => Promise<Response>;
  maxRetries: number;
  timeoutMs: number;
  /** Called with the rate-limit headers of every answer that carries them. */
  onRateLimit?: (rateLimit: RateLimit) => void;
  /** Waits `ms` (tests replace it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Backoff before retry `attempt` (1-based) after a 5xx or network failure. */
  backoffMs?: (attempt: number) => number;
}

/** Methods that may be sent twice without changing the outcome: retried after a 5xx or a network failure. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Exponential backoff with jitter: about 0.5 s, 1 s, 2 s, ... capped at 8 s. */
export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** (attempt - 1));
  return base / 2 + Math.random() * (base / 2);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(signal: AbortSignal): SocialPublishingError {
  return new SocialPublishingError({
    status: 0,
    code: 'ABORTED',
    message: 'The request was aborted',
    cause: signal.reason,
  });
}

/**
 * Sends a request with the client's policy: a timeout per attempt; 429 retried after
 * `Retry-After`; 5xx and network failures retried with backoff for idempotent methods and POSTs
 * (which always carry an Idempotency-Key); at
 * most `maxRetries` retries. Failures to get an answer become a SocialPublishingError.
 */
export class Transport {
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly backoffMs: (attempt: number) => number;

  constructor(private readonly options: TransportOptions) {
    this.sleep = options.sleep ?? abortableSleep;
    this.backoffMs = options.backoffMs ?? defaultBackoffMs;
  }

  /** A `fetch` for the generated client: `(request) => response`. */
  readonly fetch = async (given: Request): Promise<Response> => {
    const { maxRetries } = this.options;
    // Every JSON POST carries an Idempotency-Key (a fresh one per call unless the caller set one), so a
    // retry after a 5xx or a lost answer replays the first outcome instead of doing it twice.
    let request = given;
    // Multipart chunk uploads are left to the upload helper, which resumes from what the server kept.
    const multipart = (request.headers.get('content-type') ?? '').startsWith('multipart/');
    if (request.method === 'POST' && !multipart && !request.headers.has('idempotency-key')) {
      request = new Request(request, { headers: new Headers(request.headers) });
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    const retryable = IDEMPOTENT.has(request.method) || (!multipart && request.headers.has('idempotency-key'));
    const userSignal = request.signal;
    for (let attempt = 0; ; attempt++) {
      const mayRetry = attempt < maxRetries;
      // The body of a request can be read once: keep the original to clone for later attempts.
      const current = mayRetry ? request.clone() : request;
      let response: Response;
      try {
        response = await this.once(current, userSignal);
      } catch (err) {
        const failure = err as SocialPublishingError;
        if (failure.code === 'ABORTED' || !mayRetry || !retryable) throw failure;
        await this.sleep(this.backoffMs(attempt + 1), userSignal);
        continue;
      }
      this.recordRateLimit(response);
      if (!mayRetry) return response;
      if (response.status === 429) {
        const wait = parseRetryAfter(response.headers.get('retry-after'));
        await discard(response);
        await this.sleep(wait !== undefined ? wait * 1000 : this.backoffMs(attempt + 1), userSignal);
        continue;
      }
      if (response.status >= 500 && retryable) {
        const wait = parseRetryAfter(response.headers.get('retry-after'));
        await discard(response);
        await this.sleep(Math.max(wait !== undefined ? wait * 1000 : 0, this.backoffMs(attempt + 1)), userSignal);
        continue;
      }
      return response;
    }
  };

  /** One attempt, bounded by the timeout and the caller's signal. */
  private async once(request: Request, userSignal: AbortSignal): Promise<Response> {
    if (userSignal.aborted) throw abortError(userSignal);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const onAbort = () => controller.abort();
    userSignal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.options.fetch(new Request(request, { signal: controller.signal }));
    } catch (err) {
      if (userSignal.aborted) throw abortError(userSignal);
      if (timedOut) {
        throw new SocialPublishingError({
          status: 0,
          code: 'TIMEOUT',
          message: `No answer within ${this.options.timeoutMs} ms (${request.method} ${new URL(request.url).pathname})`,
          cause: err,
        });
      }
      throw new SocialPublishingError({
        status: 0,
        code: 'NETWORK_ERROR',
        message: `${request.method} ${new URL(request.url).pathname} failed: ${(err as Error)?.message ?? String(err)}`,
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      userSignal.removeEventListener('abort', onAbort);
    }
  }

  private recordRateLimit(response: Response): void {
    const h = response.headers;
    const limit = h.get('x-ratelimit-limit');
    const remaining = h.get('x-ratelimit-remaining');
    if (limit === null || remaining === null || !this.options.onRateLimit) return;
    this.options.onRateLimit({
      limit: Number(limit),
      remaining: Number(remaining),
      reset: Number(h.get('x-ratelimit-reset') ?? 0),
      burst: Number(h.get('x-ratelimit-burst') ?? limit),
    });
  }
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // already consumed or errored: nothing to free
  }
}
