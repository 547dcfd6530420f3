import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one path of a FileServer answers. */
export interface Served {
  status?: number;
  type?: string;
  body: Buffer;
  /** Send without Content-Length (chunked), so only the running count can stop it. */
  chunked?: boolean;
  /** Pause between 64 KiB pieces, in ms (a slow server); implies sending in pieces. */
  pieceDelayMs?: number;
}

const PIECE = 64 * 1024;

/** A local file server for uploads from a URL: each path answers what was put there. */
export class FileServer {
  private readonly files = new Map<string, Served>();
  private server?: Server;
  /** Requests received per path. */
  readonly hits = new Map<string, number>();
  base = '';

  put(path: string, served: Served): string {
    this.files.set(path, served);
    return `${this.base}${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const f = this.files.get(path);
      if (!f) {
        res.writeHead(404).end('not found');
        return;
      }
      const headers: Record<string, string> = {};
      if (f.type) headers['content-type'] = f.type;
      if (!f.chunked) headers['content-length'] = String(f.body.length);
      res.writeHead(f.status ?? 200, headers);
      if (f.chunked || f.pieceDelayMs !== undefined) sendInPieces(res, f.body, f.pieceDelayMs ?? 0);
      else res.end(f.body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** In pieces, so the download is streamed rather than one buffer. */
function sendInPieces(res: ServerResponse, body: Buffer, delayMs: number): void {
  let offset = 0;
  const step = (): void => {
    if (res.destroyed) return;
    if (offset >= body.length) {
      res.end();
      return;
    }
    const ok = res.write(body.subarray(offset, offset + PIECE));
    offset += PIECE;
    const next = () => (delayMs > 0 ? setTimeout(step, delayMs).unref() : setImmediate(step));
    if (ok) next();
    else res.once('drain', next);
  };
  step();
}
