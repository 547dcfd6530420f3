import { RequiredScope } from '../auth/scope.decorator';
import type { Multipart } from '@fastify/multipart';
import { Readable } from 'node:stream';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Public } from '../common/decorators/public.decorator';
import { parseRange } from '../common/http/byte-range';
import { WorkspaceId } from '../auth/workspace.decorator';
import { drainRequest } from '../common/http/drain-request';
import { AppError } from '../common/errors';
import { IdParamDto } from '../common/id-param.dto';
import { FinalizeUploadDto } from './dto/finalize-upload.dto';
import { InitializeUploadDto } from './dto/initialize-upload.dto';
import { MediaDto } from './dto/media.dto';
import { MediaItem } from './media-item.entity';
import { ChunkReceiptDto, UPLOAD_CHUNK_BODY_SCHEMA, parseUploadChunkFields } from './dto/upload-chunk.dto';
import { ACCEPTS_MULTIPART } from './media-multipart';
import { UploadFromUrlDto } from './dto/upload-from-url.dto';
import { UpdateMediaDto } from './dto/update-media.dto';
import { MediaUrlImportService } from './media-url-import.service';
import { MediaContentService } from './media-content.service';
import { MediaFinalizeService } from './media-finalize.service';
import { MediaUploadService } from './media-upload.service';
import { MediaService } from './media.service';
import { Idempotent } from '../common/decorators/idempotent.decorator';

/** Status and message of a failure raised by the multipart parser (@fastify/multipart or busboy). */
function multipartFailure(err: unknown): AppError {
  const status = (err as { statusCode?: unknown }).statusCode;
  if (status === 413)
    return new AppError('PAYLOAD_TOO_LARGE', 'Multipart body exceeds its limits (one file part, few small fields)');
  return AppError.validation(`Malformed multipart body: ${(err as Error).message}`);
}

/**
 * Waits until the stream has bytes (or has ended) or fails, so a missing object becomes an error
 * answer rather than a response cut off after its headers.
 */
function firstReadable(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onReadable = () => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (err: Error) => {
      stream.off('readable', onReadable);
      reject(err);
    };
    stream.once('readable', onReadable);
    stream.once('error', onError);
  });
}

/** What the content of a media item is served as: its own type (an image or a video). */
const MEDIA_BYTES = {
  'image/*': { schema: { type: 'string', format: 'binary' } },
  'video/*': { schema: { type: 'string', format: 'binary' } },
};

/** Room for the multipart framing and fields around a chunk when the rest of a refused body is read. */
const DRAIN_OVERHEAD_BYTES = 64 * 1024;
/** Longest wait for the rest of a refused chunk's body before the connection is closed instead. */
const DRAIN_TIMEOUT_MS = 30_000;

@ApiTags('Media')
@Controller('media')
export class MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly uploads: MediaUploadService,
    private readonly finalizer: MediaFinalizeService,
    private readonly urlImport: MediaUrlImportService,
    private readonly content: MediaContentService,
  ) {}

  @Post('upload/initialize')
  @RequiredScope('media:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Start a chunked upload',
    description:
      'Step 1 of 3. Declares the file; the server answers with `chunkSize` and `totalChunks`. Send every chunk ' +
      'with `POST /media/upload/file`, then `POST /media/upload/finalize`. Unfinalized uploads expire after 24 h.',
  })
  @ApiCreatedResponse({ type: MediaDto, description: 'The `uploading` item' })
  @ApiErrors(400, 413, 415)
  async initializeUpload(@WorkspaceId() workspaceId: string, @Body() body: InitializeUploadDto): Promise<MediaDto> {
    return this.dto(await this.uploads.initialize(workspaceId, body));
  }

  @Post('upload/url')
  @RequiredScope('media:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Upload from a URL',
    description:
      'Downloads the file (http or https, no redirects, public addresses only in production) and runs it through ' +
      'the same checks as a chunked upload: supported type (`mimeType`, else the response `Content-Type`; 415), ' +
      'size limit (413, also when the download grows past it), the bytes matching the type (415) and, for images, ' +
      'a complete decode within `MEDIA_MAX_IMAGE_PIXELS` (422 `UNPROCESSABLE_MEDIA`). A URL that cannot be ' +
      'downloaded (refused address, error status, timeout) is 400. ' +
      'Small files: 201 with the `ready` item once it is stored. Big files (the server announces more than ' +
      '`MEDIA_URL_ASYNC_BYTES`) and slow downloads (not over within `MEDIA_URL_WAIT_SECONDS`): 202 with the item in ' +
      '`processing` at once; a worker downloads it, and it becomes `ready` or `failed` (with `error`), which ' +
      '`GET /media/{id}` shows and the `media.ready` / `media.failed` events announce.',
  })
  @ApiCreatedResponse({ type: MediaDto, description: 'The `ready` item' })
  @ApiAcceptedResponse({ type: MediaDto, description: 'The `processing` item; it becomes `ready` or `failed`' })
  @ApiErrors(400, 409, 413, 415, 'UNPROCESSABLE_MEDIA')
  async uploadFromUrl(
    @WorkspaceId() workspaceId: string,
    @Body() body: UploadFromUrlDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MediaDto> {
    const { item, accepted } = await this.urlImport.importFromUrl(workspaceId, body);
    if (accepted) void reply.status(202);
    return this.dto(item);
  }

  @Post('upload/file')
  @RequiredScope('media:write')
  @Idempotent()
  @HttpCode(200)
  @RouteConfig({ [ACCEPTS_MULTIPART]: true })
  @ApiOperation({
    summary: 'Upload one chunk',
    description:
      'Step 2 of 3. `multipart/form-data` with the fields `mediaId`, `chunkIndex` and optionally `sha256`, then ' +
      'the file part `chunk` (fields first). Every chunk but the last is exactly `chunkSize` bytes; the last is the ' +
      'remainder. A larger chunk is cut off with 413; a shorter one or a `sha256` mismatch is 400 and the chunk is ' +
      'discarded. Chunks may arrive in any order and in parallel; re-sending one replaces it. Chunk 0 is checked ' +
      'against the declared type (415).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_CHUNK_BODY_SCHEMA })
  @ApiOkResponse({ type: ChunkReceiptDto })
  @ApiErrors(400, 404, 409, 413, 415)
  async uploadChunk(
    @WorkspaceId() workspaceId: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChunkReceiptDto> {
    if (!req.isMultipart()) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the chunk as multipart/form-data');
    }
    try {
      return await this.receiveChunk(workspaceId, req);
    } catch (err) {
      // Answering before the body was read to the end (an unknown or finalized upload, a bad index): the
      // rest of the body, at most a chunk, is read and dropped first, so that the client still sending it
      // reads the answer rather than a reset. A body larger than that, or too slow, closes the connection.
      const drained = await drainRequest(req.raw, this.uploads.maxChunkBytes + DRAIN_OVERHEAD_BYTES, DRAIN_TIMEOUT_MS);
      if (!drained) void reply.header('connection', 'close');
      throw err;
    }
  }

  /** Reads the fields, then streams the file part into the service; errors of the parser become 400/413. */
  private async receiveChunk(workspaceId: string, req: FastifyRequest): Promise<ChunkReceiptDto> {
    const parts = req.parts({ limits: { fileSize: this.uploads.maxChunkBytes + 1 } });
    const fields: Record<string, string> = {};
    let receipt: ChunkReceiptDto | undefined;
    for (;;) {
      let next: IteratorResult<Multipart>;
      try {
        next = await parts.next();
      } catch (err) {
        throw multipartFailure(err);
      }
      if (next.done) break;
      const part = next.value;
      if (part.type === 'field') {
        if (receipt) throw AppError.validation(`Field '${part.fieldname}' comes after the file part`);
        if (part.fieldnameTruncated || part.valueTruncated) {
          throw AppError.validation(`Field '${part.fieldname}' is too long`);
        }
        if (part.fieldname in fields) throw AppError.validation(`Field '${part.fieldname}' is repeated`);
        fields[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'chunk' || receipt) {
        part.file.destroy();
        throw AppError.validation(receipt ? 'Send one chunk per request' : `Unknown file part '${part.fieldname}'`);
      }
      let streamError: Error | undefined;
      part.file.once('error', (err: Error) => (streamError = err));
      try {
        receipt = await this.uploads.receiveChunk(workspaceId, parseUploadChunkFields(fields), part.file);
      } catch (err) {
        // The parser fails the file part (a body cut off before its closing boundary) by destroying it: the
        // storage may see that error before the 'error' event reaches the listener above, so ask the stream.
        const parserError = streamError ?? part.file.errored ?? undefined;
        part.file.destroy();
        if (parserError && !(err instanceof AppError)) throw multipartFailure(parserError);
        throw err;
      }
    }
    if (!receipt)
      throw AppError.validation("The file part 'chunk' is missing", [{ field: 'chunk', message: 'is required' }]);
    return receipt;
  }

  @Post('upload/finalize')
  @RequiredScope('media:write')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Finish a chunked upload',
    description:
      'Step 3 of 3. Joins the chunks and checks them: all present (409 naming the missing indexes), total size, ' +
      '`sha256` when declared (400), real type from the magic bytes (415); an image must decode completely ' +
      '(a truncated or corrupt file, or one of more than `MEDIA_MAX_IMAGE_PIXELS` pixels, is 422 ' +
      '`UNPROCESSABLE_MEDIA` with a message naming the problem) and gives the item its width and height. A failed ' +
      'check marks the item `failed` and removes its bytes. Finalizing a `ready` item returns it unchanged.',
  })
  @ApiOkResponse({ type: MediaDto, description: 'The `ready` item' })
  @ApiErrors(400, 404, 409, 415, 'UNPROCESSABLE_MEDIA')
  async finalizeUpload(@WorkspaceId() workspaceId: string, @Body() body: FinalizeUploadDto): Promise<MediaDto> {
    return this.dto(await this.finalizer.finalize(workspaceId, body.mediaId));
  }

  @Get(':id')
  @RequiredScope('media:write')
  @ApiOperation({
    summary: 'Get one media item',
    description: 'Includes `receivedChunks`, so an interrupted client resumes by sending the missing chunks.',
  })
  @ApiOkResponse({ type: MediaDto })
  @ApiErrors(400, 404)
  async getMedia(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<MediaDto> {
    return this.dto(await this.media.get(workspaceId, id));
  }

  @Patch(':id')
  @RequiredScope('media:write')
  @ApiOperation({
    summary: "Change a media item's alt text",
    description:
      'Sets the text alternative sent with the media to the networks that take one (Mastodon, Bluesky, X, ' +
      'LinkedIn); `null` removes it. Works in any state, also while a scheduled post uses the item: posts ' +
      'published from now on carry the new text.',
  })
  @ApiOkResponse({ type: MediaDto })
  @ApiErrors(400, 404)
  async updateMedia(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: UpdateMediaDto,
  ): Promise<MediaDto> {
    return this.dto(await this.media.updateAltText(workspaceId, id, body.altText));
  }

  @Get(':id/content')
  @Public()
  @ApiOperation({
    summary: "A media item's bytes through a signed URL (no API key)",
    description:
      'The URL is made by the service (`{PUBLIC_BASE_URL}/api/media/{id}/content?expires=...&signature=...`) for ' +
      'networks that fetch media themselves, and works without an API key until `expires`: the signature, an ' +
      'HMAC-SHA256 over the id, the expiry and the variant, authenticates it. A missing, malformed, wrong or ' +
      'expired signature is 403 `FORBIDDEN`; a deleted item, one that is not `ready`, or a variant never made is ' +
      '404. Answers the bytes with their `Content-Type`, `Content-Length` and `ETag` (the SHA-256); one ' +
      '`Range: bytes=a-b` (or `a-`, or `-n`) gives 206 with `Content-Range`, a range starting past the end 416. ' +
      'HEAD answers the headers alone. With S3 storage the answer is a 302 to a presigned URL of the object, ' +
      'valid no longer than the signature (unless `MEDIA_URL_S3_REDIRECT=false`).',
    security: [],
  })
  @ApiQuery({
    name: 'expires',
    required: true,
    type: String,
    description:
      'Unix time (seconds) the URL expires at, or `permanent` for a URL that does not expire (media linked by published Nostr notes)',
  })
  @ApiQuery({
    name: 'variant',
    required: false,
    type: String,
    description:
      'A derived file instead of the original: an image converted (`jpeg`, `png`, `webp`), a ' +
      "video's poster frame (`poster`) or converted copy; part of the signature",
  })
  @ApiQuery({ name: 'signature', required: true, type: String, description: 'base64url HMAC-SHA256' })
  @ApiOkResponse({ description: "The bytes, with the media item's (or the variant's) type", content: MEDIA_BYTES })
  @ApiResponse({
    status: 206,
    description: 'The requested range of the bytes (`Content-Range: bytes a-b/size`)',
    content: MEDIA_BYTES,
  })
  @ApiFoundResponse({ description: 'S3 storage: a presigned URL of the object (`Location`)' })
  @ApiErrors(400, 403, 404, 416)
  async mediaContent(
    @Param() { id }: IdParamDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = await this.content.resolve(id, (req.query ?? {}) as Record<string, unknown>);
    void reply.header('cache-control', 'no-store');
    if (found.kind === 'redirect') {
      await reply.header('referrer-policy', 'no-referrer').redirect(found.url, 302);
      return;
    }
    const range = parseRange(req.headers.range, found.size);
    if (range === 'unsatisfiable') {
      throw new AppError(
        'RANGE_NOT_SATISFIABLE',
        `Range ${req.headers.range} is outside the ${found.size} bytes`,
        undefined,
        {
          'Content-Range': `bytes */${found.size}`,
        },
      );
    }
    void reply
      .header('cache-control', `private, max-age=${found.maxAgeSeconds}`)
      .header('content-type', found.mimeType)
      .header('accept-ranges', 'bytes')
      .header('etag', `"${found.sha256}"`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('content-length', String(range ? range.end - range.start + 1 : found.size));
    if (range) void reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${found.size}`);
    if (req.method === 'HEAD') {
      // An empty stream: Fastify's HEAD handling keeps the Content-Length set above.
      await reply.send(Readable.from([]));
      return;
    }
    const stream = found.open(range ?? undefined);
    try {
      await firstReadable(stream);
    } catch (err) {
      stream.destroy();
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw AppError.notFound('Media');
      throw err;
    }
    await reply.send(stream);
  }

  @Delete(':id')
  @RequiredScope('media:write')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a media item',
    description:
      'Removes the item and its bytes (also aborts an unfinished upload). 409 while a scheduled or publishing post uses it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async deleteMedia(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.media.remove(workspaceId, id);
  }

  /** The item as answered, with its signed URLs once ready. */
  private dto(item: MediaItem): MediaDto {
    return MediaDto.from(item, this.content.urlsOf(item));
  }
}
