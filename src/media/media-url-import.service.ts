import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { OutboundHttp, OutboundHttpError, OutboundTimeoutError, SsrfBlockedError } from '../common/http/outbound-http';
import { mediaConfig } from '../config/media.config';
import { MediaItem } from './media-item.entity';
import { normalizeMimeType } from './media-type.util';
import { MediaService } from './media.service';

/** The outbound client of URL imports: its own instance, with the download time budget. */
export const MEDIA_DOWNLOADER = Symbol('MEDIA_DOWNLOADER');

export interface UploadFromUrlInput {
  url: string;
  filename?: string;
  mimeType?: string;
}

class DownloadTooLargeError extends Error {}

function urlProblem(message: string): AppError {
  return AppError.validation(`url: ${message}`, [{ field: 'url', message }]);
}

/** The last path segment of the URL, decoded, as a default file name. */
function filenameOf(url: string): string {
  const segment = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment) || 'file';
  } catch {
    return segment || 'file';
  }
}

/**
 * POST /media/upload/url: downloads through the SSRF-guarded outbound client (private addresses
 * refused unless OUTBOUND_ALLOW_PRIVATE), streaming to a temporary file with the size cap applied
 * as bytes arrive, then feeds the file through the chunked flow itself (initialize, chunks,
 * finalize), so the type, size, sniffing and image-dimension checks are exactly the same.
 */
@Injectable()
export class MediaUrlImportService implements OnApplicationShutdown {
  constructor(
    private readonly media: MediaService,
    @Inject(MEDIA_DOWNLOADER) private readonly http: OutboundHttp,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
  ) {}

  onApplicationShutdown(): void {
    this.http.close();
  }

  async importFromUrl(workspaceId: string, input: UploadFromUrlInput): Promise<MediaItem> {
    if (input.mimeType) this.assertAllowedType(input.mimeType);
    const dir = await mkdtemp(join(tmpdir(), 'sps-media-url-'));
    try {
      const { file, size, mimeType } = await this.download(input, join(dir, 'download'));
      const item = await this.media.initialize(workspaceId, {
        filename: input.filename ?? filenameOf(input.url),
        mimeType,
        size,
      });
      try {
        for (let index = 0; index < item.totalChunks; index++) {
          const start = index * item.chunkSize;
          const end = Math.min(size, start + item.chunkSize) - 1;
          await this.media.receiveChunk(
            workspaceId,
            { mediaId: item.id, chunkIndex: index },
            createReadStream(file, { start, end }),
          );
        }
        return await this.media.finalize(workspaceId, item.id);
      } catch (err) {
        // The client gets the reason; no half-imported item is left behind.
        await this.media.remove(workspaceId, item.id).catch(() => undefined);
        throw err;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async download(
    input: UploadFromUrlInput,
    file: string,
  ): Promise<{ file: string; size: number; mimeType: string }> {
    const max = this.cfg.maxBytes;
    let res;
    try {
      res = await this.http.stream({
        method: 'GET',
        url: input.url,
        headers: { accept: '*/*' },
        timeoutMs: this.cfg.urlTimeoutMs,
      });
    } catch (err) {
      throw this.downloadProblem(err);
    }
    try {
      if (res.status < 200 || res.status > 299) {
        throw urlProblem(
          `the server answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`,
        );
      }
      const contentType = res.headers['content-type'];
      const mimeType = input.mimeType ?? (typeof contentType === 'string' ? contentType : '');
      if (!mimeType) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The server sent no Content-Type; give mimeType in the request');
      }
      this.assertAllowedType(mimeType);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) throw this.tooLarge(declared);

      let size = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > max) callback(new DownloadTooLargeError());
          else callback(null, chunk);
        },
      });
      try {
        await pipeline(res.body, cap, createWriteStream(file));
      } catch (err) {
        if (err instanceof DownloadTooLargeError) throw this.tooLarge(null);
        throw this.downloadProblem(err);
      }
      if (size === 0) throw urlProblem('the server sent an empty body');
      return { file, size, mimeType: normalizeMimeType(mimeType) };
    } finally {
      res.body.destroy();
    }
  }

  private assertAllowedType(mimeType: string): void {
    if (!this.cfg.allowedTypes.includes(normalizeMimeType(mimeType))) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Media type '${mimeType}' is not supported; use one of ${this.cfg.allowedTypes.join(', ')}`,
      );
    }
  }

  private tooLarge(declared: number | null): AppError {
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      declared === null
        ? `The download exceeds the limit of ${this.cfg.maxBytes} bytes; it was stopped`
        : `Media of ${declared} bytes exceeds the limit of ${this.cfg.maxBytes} bytes`,
    );
  }

  private downloadProblem(err: unknown): AppError {
    if (err instanceof AppError) return err;
    if (err instanceof SsrfBlockedError) return urlProblem(`refused: ${err.message}`);
    if (err instanceof OutboundTimeoutError) {
      return urlProblem(`the download did not finish within ${Math.round(this.cfg.urlTimeoutMs / 1000)} s`);
    }
    if (err instanceof OutboundHttpError) return urlProblem(`could not download: ${err.message}`);
    return urlProblem(`could not download: ${(err as Error).message ?? String(err)}`);
  }
}
