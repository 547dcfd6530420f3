import { connect } from 'node:net';

/** One HTTP/1.1 response as read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The error that ended the connection after (or instead of) the response, e.g. ECONNRESET. */
  error?: string;
}

/**
 * Writes `request` as is on a new TCP connection to `baseUrl` (http only) and reads everything the
 * server sends until it closes the connection or `timeoutMs` passes; returns every response found,
 * in order. For requests no HTTP client would send: malformed headers, bad chunk sizes, raw bytes
 * in the path.
 */
export function rawRequest(baseUrl: string, request: Buffer | string, timeoutMs = 5_000): Promise<RawResponse[]> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponses(Buffer.concat(chunks), error));
    });
    socket.write(request);
  });
}

/** Splits a byte stream into HTTP/1.1 responses (Content-Length bodies, as the service sends them). */
export function parseResponses(bytes: Buffer, error?: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.subarray(end + 4 + length);
  }
  if (error) {
    if (out.length) out[out.length - 1].error = error;
    else out.push({ status: 0, headers: {}, body: '', error });
  }
  return out;
}
