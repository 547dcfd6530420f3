/** Stable error codes clients branch on (docs/guide.md section 2). */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'UNPROCESSABLE_MEDIA'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

export const HTTP_STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
  UNPROCESSABLE_MEDIA: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** The wire error shape: `{error, message}`, with `details` for field problems. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * A detail as a sentence: `content is required`, `channelIds must contain at least 1 item`; a message
 * that does not start with a verb follows a colon (`channelIds: each value must be a UUID`).
 */
export function detailSentence(d: ErrorDetail): string {
  return /^(must|is|are|cannot|has|should)\b/.test(d.message) ? `${d.field} ${d.message}` : `${d.field}: ${d.message}`;
}

/** A domain failure with a stable code; the global filter turns it into `{error, message}` and a status. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string | number>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static notFound(what: string): AppError {
    return new AppError('NOT_FOUND', `${what} not found`);
  }

  static conflict(message: string): AppError {
    return new AppError('CONFLICT', message);
  }

  static validation(message: string, details?: ErrorDetail[]): AppError {
    return new AppError('VALIDATION_ERROR', message, details);
  }

  /** A 400 for these field problems; the message is their sentences (detailSentence), joined by `; `. */
  static invalid(details: ErrorDetail[]): AppError {
    return new AppError('VALIDATION_ERROR', details.map(detailSentence).join('; ') || 'Invalid request', details);
  }
}
