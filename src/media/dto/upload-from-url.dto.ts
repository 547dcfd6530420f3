import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsHttpUrl } from '../../common/validators';
import { ALT_TEXT_MAX_LENGTH } from './update-media.dto';

/** Body of POST /media/upload/url. */
export class UploadFromUrlDto {
  /** Where to download the file from (http or https; redirects are not followed). */
  @ApiProperty({ format: 'uri', example: 'https://cdn.example.com/images/sunset.png', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  @IsHttpUrl({ message: 'must be an absolute http or https URL' })
  url!: string;

  /** The file's name, for display; default: the last segment of the URL's path. */
  @ApiPropertyOptional({ example: 'sunset.png', maxLength: 255 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  filename?: string;

  /** The declared type; default: the response's `Content-Type`. Either must be a supported type (415). */
  @ApiPropertyOptional({ example: 'image/png', maxLength: 127 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(127)
  mimeType?: string;

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
