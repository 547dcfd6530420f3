/** Base class of transport-level failures raised by OutboundHttp (never contains headers or bodies). */
export abstract class OutboundHttpError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The connect or total time budget of a request ran out. */
export class OutboundTimeoutError extends OutboundHttpError {
  constructor(
    message: string,
    readonly phase: 'connect' | 'total',
  ) {
    super(message);
  }
}

/** DNS failure, refused/reset connection, TLS failure or a response cut short. */
export class OutboundNetworkError extends OutboundHttpError {
  constructor(
    message: string,
    /** Node's error code (ECONNREFUSED, ENOTFOUND, ...) when there was one. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The response body exceeded `maxResponseBytes`. */
export class OutboundResponseTooLargeError extends OutboundHttpError {
  constructor(readonly limitBytes: number) {
    super(`The response body exceeded ${limitBytes} bytes`);
  }
}

/** The request body stream failed while it was being sent; `cause` is the stream's error. */
export class OutboundBodyError extends OutboundHttpError {
  constructor(cause: unknown) {
    super('The request body could not be read', { cause });
  }
}
