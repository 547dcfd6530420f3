import { ApiProperty } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min, validateSync } from 'class-validator';
import { AppError, ErrorDetail } from '../../common/errors';
import { prepareValidationRules, toErrorDetails } from '../../common/validation.pipe';

/** The text fields of `POST /media/upload/file`; they come before the file part `chunk`. */
export class UploadChunkFieldsDto {
  /** The id returned by initialize. */
  @IsUUID('all', { message: 'must be a UUID' })
  mediaId!: string;

  /** 0-based index of the chunk, below totalChunks. */
  @IsInt({ message: 'must be an integer' })
  @Min(0)
  @Max(1_000_000)
  chunkIndex!: number;

  /** Hex SHA-256 of this chunk; on mismatch the chunk is discarded (400). */
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hexadecimal characters' })
  sha256?: string;
}

const FIELD_NAMES: ReadonlySet<string> = new Set(['mediaId', 'chunkIndex', 'sha256']);
const INTEGER = /^(0|[1-9][0-9]{0,8})$/;

/** Validates the multipart text fields like the global pipe validates JSON bodies (400 with details). */
export function parseUploadChunkFields(raw: Record<string, string>): UploadChunkFieldsDto {
  const details: ErrorDetail[] = Object.keys(raw)
    .filter((name) => !FIELD_NAMES.has(name))
    .map((name) => ({ field: name, message: 'is not a known field' }));
  const chunkIndex =
    raw.chunkIndex !== undefined && INTEGER.test(raw.chunkIndex) ? Number(raw.chunkIndex) : raw.chunkIndex;
  prepareValidationRules();
  const dto = plainToInstance(UploadChunkFieldsDto, { mediaId: raw.mediaId, chunkIndex, sha256: raw.sha256 });
  details.push(...toErrorDetails(validateSync(dto, { stopAtFirstError: true })));
  if (details.length > 0) throw AppError.invalid(details);
  if (dto.sha256 === undefined) delete dto.sha256;
  return dto;
}

/** What the server holds after a chunk was stored. */
export class ChunkReceiptDto {
  /** The media id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The chunk just stored. */
  @ApiProperty({ type: 'integer', example: 1 })
  chunkIndex!: number;

  /** Every chunk received so far, ascending. */
  @ApiProperty({ type: 'integer', isArray: true, example: [0, 1] })
  receivedChunks!: number[];

  @ApiProperty({ type: 'integer', example: 3 })
  totalChunks!: number;
}

/** OpenAPI schema of the multipart request body (the Swagger plugin cannot infer a file part). */
export const UPLOAD_CHUNK_BODY_SCHEMA = {
  type: 'object',
  required: ['mediaId', 'chunkIndex', 'chunk'],
  properties: {
    mediaId: { type: 'string', format: 'uuid', description: 'The id returned by initialize' },
    chunkIndex: { type: 'integer', minimum: 0, description: '0-based index of the chunk, below totalChunks' },
    sha256: {
      type: 'string',
      pattern: '^[0-9a-fA-F]{64}$',
      description: 'Optional hex SHA-256 of this chunk; on mismatch the chunk is discarded (400)',
    },
    chunk: {
      type: 'string',
      format: 'binary',
      description:
        'The bytes: exactly chunkSize for every chunk but the last, the remainder for the last. Must be the last part.',
    },
  },
};
