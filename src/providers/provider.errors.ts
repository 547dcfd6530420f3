/** Typed failures thrown by provider adapters; the caller decides to retry, fail or disconnect. */
export type ProviderErrorCode =
  | 'INVALID_CREDENTIALS'
  | 'CREDENTIALS_REVOKED'
  | 'CONTENT_REJECTED'
  | 'MEDIA_REJECTED'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_UNAVAILABLE'
  | 'PROCESSING'
  | 'VIDEO_PROCESSING_FAILED';

export abstract class ProviderError extends Error {
  abstract readonly code: ProviderErrorCode;
  /** True when trying again later may succeed. */
  abstract readonly transient: boolean;
  constructor(
    message: string,
    /** HTTP status the provider answered, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The credentials given to `connect` were refused (bad token, wrong password, unreachable instance). */
export class InvalidCredentialsError extends ProviderError {
  readonly code = 'INVALID_CREDENTIALS' as const;
  readonly transient = false;
}

/** Stored credentials no longer work (401 from the provider): the channel must be disconnected. */
export class CredentialsRevokedError extends ProviderError {
  readonly code = 'CREDENTIALS_REVOKED' as const;
  readonly transient = false;
}

/** The provider refused the post's content (4xx other than 401/429). */
export class ContentRejectedError extends ProviderError {
  readonly code = 'CONTENT_REJECTED' as const;
  readonly transient = false;
}

/** The provider refused a media attachment. */
export class MediaRejectedError extends ProviderError {
  readonly code = 'MEDIA_REJECTED' as const;
  readonly transient = false;
}

/** Network error, timeout, 5xx or 429: try again later. */
export class TransientProviderError extends ProviderError {
  readonly code: 'PROVIDER_UNAVAILABLE' | 'PROVIDER_RATE_LIMITED';
  readonly transient = true;
  constructor(
    message: string,
    status?: number,
    /** Seconds the provider asked us to wait (Retry-After / ratelimit-reset), when given. */
    readonly retryAfterSeconds?: number,
    /** A rate-limit signal; by default an HTTP 429 (Graph APIs also signal limits in the body of a 400). */
    rateLimited: boolean = status === 429,
  ) {
    super(message, status);
    this.code = rateLimited ? 'PROVIDER_RATE_LIMITED' : 'PROVIDER_UNAVAILABLE';
  }
}

/**
 * Not an error: the network is still processing what this attempt sent (a video) and the adapter has
 * saved a checkpoint naming it (the media or container id). The publisher releases the worker and
 * polls again with a delayed job at `checkAfterMs`, giving the adapter its checkpoint back; the
 * whole wait is bounded (VIDEO_PROCESSING_MAX_WAIT_SECONDS, then `VIDEO_PROCESSING_TIMEOUT`).
 * Adapters must call `saveCheckpoint` before throwing it, or the next poll starts over.
 */
export class ProcessingPendingError extends ProviderError {
  readonly code = 'PROCESSING' as const;
  readonly transient = true;
  constructor(
    message: string,
    /** When to look again, from now, in ms (the network's own hint where it gives one). */
    readonly checkAfterMs: number,
  ) {
    super(message);
  }
}

/** The network gave up processing a video (undecodable, refused after upload): failed for good, not retried. */
export class VideoProcessingFailedError extends ProviderError {
  readonly code = 'VIDEO_PROCESSING_FAILED' as const;
  readonly transient = false;
}
