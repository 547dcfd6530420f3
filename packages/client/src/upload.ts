import { SocialPublishingError } from './errors';
import type { MediaDto } from './generated/types.gen';
import { sha256Hex, toBytes } from './util';

/** What `media.upload` accepts: bytes in memory, a Blob/File, a Node Readable or any async iterable of bytes. */
export type UploadSource =
  Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

export interface UploadProgress {
  uploadedBytes: number;
  totalBytes: number;
  uploadedChunks: number;
  totalChunks: number;
}

export interface UploadOptions {
  filename: string;
  mimeType: string;
  /**
   * Total size in bytes. Needed to stream a Readable/async iterable without holding it in memory;
   * without it such a source is read whole first. Blobs and buffers know their size.
   */
  size?: number;
  /**
   * The service chooses the chunk size (initialize answers it; `MEDIA_CHUNK_BYTES` on the server).
   * When given, the upload fails early if the service's differs, e.g. to bound memory for streams.
   */
  chunkSize?: number;
  /** Chunks in flight at once. Default 4. */
  concurrency?: number;
  /** Hex SHA-256 of the whole file, checked by finalize (optional). */
  sha256?: string;
  /** Text alternative for screen readers (up to 1500 characters), sent to the networks that take one. */
  altText?: string;
  /** Resume an upload started earlier (e.g. by a process that died): only its missing chunks are sent. */
  mediaId?: string;
  /** Called after every stored chunk. */
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/** The three calls of the chunked upload, as the client makes them (with its retry policy). */
export interface UploadCalls {
  initialize(
    body: { filename: string; mimeType: string; size: number; sha256?: string },
    signal?: AbortSignal,
  ): Promise<MediaDto>;
  sendChunk(
    body: { mediaId: string; chunkIndex: number; sha256: string; chunk: Blob },
    signal?: AbortSignal,
  ): Promise<{ receivedChunks: number[] }>;
  finalize(mediaId: string, signal?: AbortSignal): Promise<MediaDto>;
  get(mediaId: string, signal?: AbortSignal): Promise<MediaDto>;
}

/** Reads chunk `index` (of `chunkSize` bytes) of the source; streams hand chunks out in order. */
interface ChunkSource {
  size: number;
  /** Random access (buffers, Blobs) or sequential (streams). */
  random: boolean;
  read(index: number, chunkSize: number): Promise<Uint8Array>;
}

function isAsyncIterable(x: unknown): x is AsyncIterable<Uint8Array | string> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}

/** A web stream without async iteration (older browsers); where streams iterate, isAsyncIterable takes them. */
function isReadableStream(x: unknown): x is ReadableStream<Uint8Array> {
  return typeof x === 'object' && x !== null && typeof (x as { getReader?: unknown }).getReader === 'function';
}

async function* readableStreamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Cuts an async iterable of arbitrary pieces into exact chunks, in order. */
function sequentialSource(iterable: AsyncIterable<Uint8Array | string>, size: number): ChunkSource {
  const iterator = iterable[Symbol.asyncIterator]();
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let next = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const readExact = async (want: number): Promise<Uint8Array> => {
    while (pendingBytes < want) {
      const step: IteratorResult<Uint8Array | string> = await iterator.next();
      if (step.done) throw new Error(`The source ended before its declared size of ${size} bytes`);
      const bytes = toBytes(step.value);
      pending.push(bytes);
      pendingBytes += bytes.length;
    }
    const out = new Uint8Array(want);
    let filled = 0;
    while (filled < want) {
      const head = pending[0]!;
      const n = Math.min(head.length, want - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) pending.shift();
      else pending[0] = head.subarray(n);
    }
    pendingBytes -= want;
    return out;
  };
  const take = async (index: number, chunkSize: number): Promise<Uint8Array> => {
    if (index < next) throw new Error(`Stream sources are read once, in order (chunk ${index} is behind)`);
    const bytesOf = (i: number) => Math.min(chunkSize, size - i * chunkSize);
    // Chunks the service already holds (resuming with `mediaId`) are read and dropped.
    for (; next < index; next++) await readExact(bytesOf(next));
    next++;
    return readExact(bytesOf(index));
  };
  return {
    size,
    random: false,
    // Serialized: concurrent workers get chunks one after the other, in order.
    read(index, chunkSize) {
      const result = queue.then(() => take(index, chunkSize));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

async function toChunkSource(source: UploadSource, size: number | undefined): Promise<ChunkSource> {
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return {
      size: source.size,
      random: true,
      read: async (i, c) => new Uint8Array(await source.slice(i * c, Math.min(source.size, (i + 1) * c)).arrayBuffer()),
    };
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    const bytes = toBytes(source);
    return {
      size: bytes.length,
      random: true,
      read: async (i, c) => bytes.subarray(i * c, Math.min(bytes.length, (i + 1) * c)),
    };
  }
  const iterable = isAsyncIterable(source)
    ? source
    : isReadableStream(source)
      ? readableStreamChunks(source)
      : undefined;
  if (!iterable) throw new TypeError('Unsupported upload source: pass a Blob, bytes, a stream or an async iterable');
  if (size !== undefined) return sequentialSource(iterable, size);
  // Unknown size: read it whole (initialize needs the size first).
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const piece of iterable) {
    const bytes = toBytes(piece);
    parts.push(bytes);
    total += bytes.length;
  }
  const all = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  return toChunkSource(all, undefined);
}

/** Worth resuming after: no answer, a 5xx, or a 429 the transport ran out of retries for. */
function resumable(err: unknown): boolean {
  return (
    err instanceof SocialPublishingError &&
    err.code !== 'ABORTED' &&
    (err.status === 0 || err.status === 429 || err.status >= 500)
  );
}

/**
 * initialize (or pick up `mediaId`), send the missing chunks `concurrency` at a time with their
 * SHA-256, and finalize. When chunks fail for a transient reason, it reads `receivedChunks` from
 * the service and sends what is still missing, up to `maxRounds` times.
 */
export async function uploadMedia(
  calls: UploadCalls,
  source: UploadSource,
  options: UploadOptions,
  maxRounds: number,
): Promise<MediaDto> {
  const { signal } = options;
  const src = await toChunkSource(source, options.size);
  let media = options.mediaId
    ? await calls.get(options.mediaId, signal)
    : await calls.initialize(
        {
          filename: options.filename,
          mimeType: options.mimeType,
          size: src.size,
          ...(options.sha256 ? { sha256: options.sha256 } : {}),
          ...(options.altText ? { altText: options.altText } : {}),
        },
        signal,
      );
  if (media.status === 'ready') return media;
  if (media.size !== src.size) {
    throw new TypeError(`The source has ${src.size} bytes but media ${media.id} was declared with ${media.size}`);
  }
  const { chunkSize, totalChunks } = media;
  if (options.chunkSize !== undefined && options.chunkSize !== chunkSize) {
    throw new TypeError(`The service uses chunks of ${chunkSize} bytes, not ${options.chunkSize}`);
  }
  const chunkBytes = (i: number) => (i < totalChunks - 1 ? chunkSize : src.size - chunkSize * (totalChunks - 1));
  const received = new Set(media.receivedChunks);
  let uploadedBytes = [...received].reduce((sum, i) => sum + chunkBytes(i), 0);
  // A stream can be read once: chunks that failed are kept until they are stored.
  const kept = new Map<number, Uint8Array>();

  for (let round = 0; ; round++) {
    const missing: number[] = [];
    for (let i = 0; i < totalChunks; i++) if (!received.has(i)) missing.push(i);
    if (missing.length === 0) break;
    const failures = new Map<number, unknown>();
    let fatal: unknown = undefined;
    let position = 0;
    const worker = async () => {
      while (fatal === undefined && position < missing.length) {
        if (signal?.aborted) return;
        const index = missing[position++]!;
        let bytes: Uint8Array;
        if (kept.has(index)) bytes = kept.get(index)!;
        else if (src.random || round === 0) bytes = await src.read(index, chunkSize);
        else {
          fatal = new Error(`Chunk ${index} is missing on the service and the stream source cannot be read again`);
          return;
        }
        try {
          const sha256 = await sha256Hex(bytes);
          await calls.sendChunk(
            { mediaId: media.id, chunkIndex: index, sha256, chunk: new Blob([bytes as BlobPart]) },
            signal,
          );
          received.add(index);
          kept.delete(index);
          uploadedBytes += bytes.length;
          options.onProgress?.({ uploadedBytes, totalBytes: src.size, uploadedChunks: received.size, totalChunks });
        } catch (err) {
          if (!resumable(err)) {
            fatal = err;
            return;
          }
          failures.set(index, err);
          if (!src.random) kept.set(index, bytes);
        }
      }
    };
    const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, missing.length)) }, worker);
    await Promise.all(workers);
    if (signal?.aborted)
      throw new SocialPublishingError({
        status: 0,
        code: 'ABORTED',
        message: 'The upload was aborted',
        cause: signal.reason,
      });
    if (fatal !== undefined) throw fatal as Error;
    if (failures.size === 0) continue;
    if (round >= maxRounds) throw [...failures.values()][0] as SocialPublishingError;
    // Resume from what the service holds (a chunk may have been stored although its answer was lost).
    media = await calls.get(media.id, signal);
    for (const i of media.receivedChunks) {
      if (!received.has(i)) uploadedBytes += chunkBytes(i);
      received.add(i);
      kept.delete(i);
    }
  }
  return calls.finalize(media.id, signal);
}
