import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { ALT_TEXT_MAX_LENGTH } from './update-media.dto';

export class InitializeUploadDto {
  /** The file's name, for display; path components are stripped. */
  @ApiProperty({ example: 'sunset.png', maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  filename!: string;

  /** One of the supported types (415 otherwise); the bytes must match it. */
  @ApiProperty({ example: 'image/png', maxLength: 127 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(127)
  mimeType!: string;

  /** Total size in bytes; above the configured limit (default 512 MiB) the answer is 413. */
  @ApiProperty({ type: 'integer', example: 12_000_000, minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  size!: number;

  /** Hex SHA-256 of the whole file; when given, finalize checks it. */
  @ApiPropertyOptional({ pattern: '^[0-9a-fA-F]{64}$' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hexadecimal characters' })
  sha256?: string;

  /**
   * Text alternative for screen readers (up to 1500 characters), sent with the media to the networks that
   * take one; change it later with `PATCH /media/{id}`.
   */
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: ALT_TEXT_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ALT_TEXT_MAX_LENGTH)
  altText?: string | null;
}
