/** One per-field problem of a `VALIDATION_ERROR`. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * Every failure of a call: an error answer of the service (`status` and `code` as it sent them,
 * e.g. 404 `NOT_FOUND`), or a failure to get an answer at all (`status` 0, `code`
 * `NETWORK_ERROR`, `TIMEOUT` or `ABORTED`).
 */
export class SocialPublishingError extends Error {
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The service's stable code (`VALIDATION_ERROR`, `UNAUTHORIZED`, `NOT_FOUND`, ...) or the client's own. */
  readonly code: string;
  /** Per-field problems (`VALIDATION_ERROR`). */
  readonly details?: ErrorDetail[];
  /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId?: string;
  /** Seconds the service asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter?: number;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SocialPublishingError';
    this.status = init.status;
    this.code = init.code;
    if (init.details !== undefined) this.details = init.details;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }

  /** Builds the error of a non-2xx answer from its parsed body (`{error, message, details?}`). */
  static fromResponse(response: Response, body: unknown): SocialPublishingError {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const code = typeof b.error === 'string' ? b.error : `HTTP_${response.status}`;
    const message =
      typeof b.message === 'string'
        ? b.message
        : typeof body === 'string' && body
          ? body.slice(0, 500)
          : `HTTP ${response.status}`;
    return new SocialPublishingError({
      status: response.status,
      code,
      message,
      details: Array.isArray(b.details) ? (b.details as ErrorDetail[]) : undefined,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
}

/** A webhook whose signature, timestamp or body does not check out. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}
