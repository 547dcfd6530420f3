import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { RouteConfig } from '@nestjs/platform-fastify';
import { AppError } from '../common/errors';
import { MediaDto } from '../media/dto/media.dto';
import { InitializeUploadDto } from '../media/dto/initialize-upload.dto';
import { parseUploadChunkFields } from '../media/dto/upload-chunk.dto';
import { MediaFinalizeService } from '../media/media-finalize.service';
import { ACCEPTS_MULTIPART } from '../media/media.module';
import { MediaUploadService } from '../media/media-upload.service';
import { ConsoleExceptionFilter } from './console-exception.filter';
import { ConsoleGuard } from './console.guard';
import { ConsolePagesService, validateForm } from './console-pages.service';

/**
 * The composer's uploads: the API's chunked upload (initialize, chunks, finalize) with the same
 * services, rules and sizes, for the signed-in user (the session cookie and the page's CSRF token in
 * X-CSRF-Token; the API's routes take keys only). Answers are JSON: the item, or `{error, message}`.
 */
@ApiExcludeController()
@Public()
@Controller('console/media/upload')
@UseGuards(ConsoleGuard)
@UseFilters(ConsoleExceptionFilter)
export class ConsoleMediaController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly uploads: MediaUploadService,
    private readonly finalizer: MediaFinalizeService,
  ) {}

  @Post('initialize')
  async initialize(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      const body = validateForm(InitializeUploadDto, (req.body ?? {}) as Record<string, unknown>);
      return MediaDto.from(await this.uploads.initialize(this.pages.actor(req).workspaceId, body));
    });
  }

  @Post('file')
  @RouteConfig({ [ACCEPTS_MULTIPART]: true })
  async chunk(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the chunk as multipart/form-data');
      const workspaceId = this.pages.actor(req).workspaceId;
      const fields: Record<string, string> = {};
      for await (const part of req.parts({ limits: { fileSize: this.uploads.maxChunkBytes + 1 } })) {
        if (part.type === 'field') {
          fields[part.fieldname] = String(part.value);
          continue;
        }
        const file = part;
        if (file.fieldname !== 'chunk') {
          file.file.resume();
          throw AppError.validation(`Unknown file part '${file.fieldname}'`);
        }
        return this.uploads.receiveChunk(workspaceId, parseUploadChunkFields(fields), file.file);
      }
      throw AppError.validation("The file part 'chunk' is missing");
    });
  }

  @Post('finalize')
  async finalize(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async () => {
      const body = (req.body ?? {}) as { mediaId?: unknown; altText?: unknown };
      if (typeof body.mediaId !== 'string') throw AppError.validation('mediaId is required');
      return MediaDto.from(await this.finalizer.finalize(this.pages.actor(req).workspaceId, body.mediaId));
    });
  }

  /** JSON for the script: the result, or the service's refusal with its status. */
  private async answer(reply: FastifyReply, run: () => Promise<unknown>): Promise<void> {
    try {
      void reply
        .status(200)
        .header('content-type', 'application/json')
        .send(JSON.stringify(await run()));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const status =
        err.code === 'UNSUPPORTED_MEDIA_TYPE'
          ? 415
          : err.code === 'NOT_FOUND'
            ? 404
            : err.code === 'PAYLOAD_TOO_LARGE'
              ? 413
              : 400;
      void reply
        .status(status)
        .header('content-type', 'application/json')
        .send(JSON.stringify({ error: err.code, message: err.message }));
    }
  }
}
