import type { IncomingMessage } from 'node:http';

/**
 * Reads and drops what is left of a request's body, so that an answer given before the body was read
 * (an unknown upload, one already finalized) reaches the client: a server that closes the connection
 * while the client is still sending makes the client's kernel see a reset, and clients such as Node's
 * fetch then fail the whole request (EPIPE) without reading the answer.
 *
 * Resolves true once the body has ended, false when it would take more than `maxBytes` more bytes or
 * `timeoutMs` (the caller then answers with `Connection: close`, as before). A declared Content-Length
 * over the bound is refused at once, without reading.
 */
export function drainRequest(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('close', onClose);
      req.removeListener('error', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) {
        req.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => {
      req.pause();
      finish(false);
    }, timeoutMs);
    timer.unref();
    req.unpipe(); // from the multipart parser, which has nothing more to do with it
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
    req.resume();
  });
}
