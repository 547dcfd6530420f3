import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import type { ErrorBody } from '../errors/all-exceptions.filter';

/** What Node's HTTP parser (llhttp) or its request timers raise before any route sees a request. */
export interface ClientError extends Error {
  code?: string;
  /** llhttp's explanation, e.g. "Invalid header value char". */
  reason?: string;
}

/** How long a connection whose request could not be parsed may take to read the answer before it is closed. */
const LINGER_MS = 2_000;

const answered = new WeakSet<Socket>();
const logger = new Logger('HTTP');

/** Status and body for a request the parser refused, in the API's error shape. */
export function clientErrorResponse(err: ClientError): { status: number; body: ErrorBody } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        body: { error: 'VALIDATION_ERROR', message: 'The URL or the request headers are too large' },
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: 'Chunk extensions are too large' } };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, body: { error: 'VALIDATION_ERROR', message: 'The request was not received in time' } };
    default: {
      // llhttp's reasons are fixed ASCII phrases; keep whatever else arrives printable and short.
      const reason = typeof err.reason === 'string' ? err.reason.replace(/[^\x20-\x7e]/g, '').slice(0, 120) : '';
      return {
        status: 400,
        body: {
          error: 'VALIDATION_ERROR',
          message: reason ? `Malformed HTTP request: ${reason}` : 'Malformed HTTP request',
        },
      };
    }
  }
}

/**
 * Fastify's `clientErrorHandler`: answers what Node's HTTP parser refuses (a control byte or obs-fold in
 * a header, Content-Length with Transfer-Encoding, a bad chunk size, raw non-ASCII bytes in the path,
 * headers over the size limit, a request that does not arrive in time) in the error shape, with an
 * X-Request-Id, where Node and Fastify would write their own bodies.
 *
 * The answer waits for a response still being written for an earlier request of the connection
 * (pipelining keeps answers in order), and the connection is closed gracefully: ended after the
 * answer, with what the client still sends read and dropped for a moment, so that the answer is not
 * lost to a reset. An error inside the body of the request in flight fails that request: it is
 * answered here when nothing was written for it yet, else the connection is cut.
 */
export function answerClientError(err: ClientError, socket: Socket): void {
  // The parser stays failed: the bytes that keep arriving raise the same error again.
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!inFlight) return answer(err, socket);
  if (!inFlight.req?.complete) {
    // The malformed bytes are the body of the request being handled: it fails (its handler sees the
    // connection close), and is answered here unless its own answer has begun.
    if (inFlight.headersSent) socket.destroy();
    else answer(err, socket);
    return;
  }
  // A later request of a pipelined connection: after the answer to the one before.
  const after = () => (socket.destroyed ? undefined : answer(err, socket));
  inFlight.once('finish', after);
  inFlight.once('close', after);
}

function answer(err: ClientError, socket: Socket): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const { status, body } = clientErrorResponse(err);
  const requestId = randomUUID();
  logger.debug({ msg: 'Malformed request', requestId, code: err.code, status });
  const json = JSON.stringify(body);
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
