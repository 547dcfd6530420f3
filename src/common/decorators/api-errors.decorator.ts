import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorCode, HTTP_STATUS_BY_CODE } from '../errors/app-error';
import { ErrorBody } from '../errors/all-exceptions.filter';
import { ErrorResponseDto } from '../errors/error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR: the body, query or path is invalid',
  403: 'FORBIDDEN: the signature is missing, wrong or expired',
  404: 'NOT_FOUND: no such resource in this workspace',
  405: 'METHOD_NOT_ALLOWED: the path exists, not with this method (Allow lists the methods it has)',
  409: 'CONFLICT: the resource state forbids the operation',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE: the Range starts past the end of the file (Content-Range: bytes */size)',
  422: 'IDEMPOTENCY_KEY_REUSED',
  503: 'SERVICE_UNAVAILABLE',
};

/** One realistic error body per code, as the global filter writes it: the example of every error response. */
export const ERROR_EXAMPLES: Record<ErrorCode, ErrorBody> = {
  VALIDATION_ERROR: {
    error: 'VALIDATION_ERROR',
    message: 'content is required; channelIds must contain at least 1 item',
    details: [
      { field: 'content', message: 'is required' },
      { field: 'channelIds', message: 'must contain at least 1 item' },
    ],
  },
  UNAUTHORIZED: { error: 'UNAUTHORIZED', message: 'Invalid API key' },
  FORBIDDEN: { error: 'FORBIDDEN', message: 'The signature of this media URL is wrong or has expired' },
  NOT_FOUND: { error: 'NOT_FOUND', message: 'Resource not found' },
  METHOD_NOT_ALLOWED: {
    error: 'METHOD_NOT_ALLOWED',
    message: 'Method PATCH is not allowed on /api/posts; allowed: GET, HEAD, POST',
  },
  CONFLICT: { error: 'CONFLICT', message: 'The resource state forbids this operation' },
  PAYLOAD_TOO_LARGE: { error: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type: text/plain' },
  RANGE_NOT_SATISFIABLE: { error: 'RANGE_NOT_SATISFIABLE', message: 'Range bytes=5000- is outside the 4096 bytes' },
  IDEMPOTENCY_KEY_REUSED: {
    error: 'IDEMPOTENCY_KEY_REUSED',
    message: 'This Idempotency-Key was used with a different request',
  },
  UNPROCESSABLE_MEDIA: {
    error: 'UNPROCESSABLE_MEDIA',
    message: 'The PNG is truncated: it ends inside its IDAT chunk (it ends at byte 4096)',
  },
  RATE_LIMIT_EXCEEDED: {
    error: 'RATE_LIMIT_EXCEEDED',
    message: 'Rate limit exceeded: 100 requests per minute, bursts up to 200',
  },
  INTERNAL_ERROR: { error: 'INTERNAL_ERROR', message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { error: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable' },
};

/** Descriptions of codes that share their status with another code, for operations that name them. */
const CODE_DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  UNPROCESSABLE_MEDIA: 'UNPROCESSABLE_MEDIA: the image does not decode (truncated, corrupt) or has too many pixels',
};

/** The error code the API answers with a given HTTP status (the first one, where several share it). */
export function errorCodeOf(status: number): ErrorCode | undefined {
  return (Object.keys(HTTP_STATUS_BY_CODE) as ErrorCode[]).find((code) => HTTP_STATUS_BY_CODE[code] === status);
}

/**
 * Documents operation-specific error responses, each with an example carrying its own code;
 * 401, 429 and 500 are added to every secured operation (src/docs/openapi.ts). A status is given as a
 * number, or as the code when several codes share it (`'UNPROCESSABLE_MEDIA'` for a 422).
 */
export function ApiErrors(...errors: Array<number | ErrorCode>) {
  return applyDecorators(
    ...errors.map((error) => {
      const status = typeof error === 'number' ? error : HTTP_STATUS_BY_CODE[error];
      const code = typeof error === 'number' ? errorCodeOf(status) : error;
      return ApiResponse({
        status,
        description:
          (typeof error === 'string' ? CODE_DESCRIPTIONS[error] : undefined) ?? DESCRIPTIONS[status] ?? 'Error',
        type: ErrorResponseDto,
        ...(code ? { example: ERROR_EXAMPLES[code] } : {}),
      });
    }),
  );
}
