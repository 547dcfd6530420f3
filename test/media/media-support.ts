import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp, TestResponse } from '../support/test-app';

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A fresh MEDIA_DIR for one spec file. */
export function tempMediaDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sps-media-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Where LocalDiskStorage keeps an item's parts and its final object. */
export function partsDir(mediaDir: string, id: string): string {
  return join(mediaDir, 'parts', id);
}
export function objectPath(mediaDir: string, id: string): string {
  return join(mediaDir, 'objects', id.slice(0, 2), id);
}
export function hasBytes(mediaDir: string, id: string): boolean {
  return existsSync(partsDir(mediaDir, id)) || existsSync(objectPath(mediaDir, id));
}

/** The multipart body of one chunk: fields first, then the file part `chunk`. */
export function chunkForm(mediaId: string, chunkIndex: number | string, bytes: Buffer, opts: { sha256?: string } = {}) {
  const form = new FormData();
  form.append('mediaId', mediaId);
  form.append('chunkIndex', String(chunkIndex));
  if (opts.sha256) form.append('sha256', opts.sha256);
  form.append('chunk', new Blob([bytes]), 'chunk.bin');
  return form;
}

/** Thin client for the three-step upload. */
export class MediaClient {
  constructor(
    private readonly t: TestApp,
    readonly key: string,
  ) {}

  initialize(body: Record<string, unknown>): Promise<TestResponse> {
    return this.t.request('POST', '/api/media/upload/initialize', { key: this.key, body });
  }

  chunk(mediaId: string, index: number | string, bytes: Buffer, opts: { sha256?: string } = {}): Promise<TestResponse> {
    return this.t.request('POST', '/api/media/upload/file', {
      key: this.key,
      rawBody: chunkForm(mediaId, index, bytes, opts),
    });
  }

  finalize(mediaId: string): Promise<TestResponse> {
    return this.t.request('POST', '/api/media/upload/finalize', { key: this.key, body: { mediaId } });
  }

  get(id: string): Promise<TestResponse> {
    return this.t.request('GET', `/api/media/${id}`, { key: this.key });
  }

  delete(id: string): Promise<TestResponse> {
    return this.t.request('DELETE', `/api/media/${id}`, { key: this.key });
  }

  /** Chunk `index` of `file` for an item with this chunk size. */
  static slice(file: Buffer, chunkSize: number, index: number): Buffer {
    return file.subarray(index * chunkSize, (index + 1) * chunkSize);
  }
}

/** A media answer without its signed URLs, whose expiry moves with the clock (for comparing two answers). */
export function withoutSignedUrls(body: Record<string, unknown>): Record<string, unknown> {
  const { contentUrl, posterUrl, ...rest } = body;
  return { ...rest, contentUrl: typeof contentUrl, posterUrl: typeof posterUrl };
}
