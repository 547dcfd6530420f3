import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';

/** Longest alt text accepted (Mastodon's default limit for media descriptions). */
export const ALT_TEXT_MAX_LENGTH = 1500;

/** Body of PATCH /media/{id}. */
export class UpdateMediaDto {
  /**
   * Text alternative for screen readers (up to 1500 characters), sent with the media to the networks that
   * take one; `null` removes it. Posts published from now on carry the new text.
   */
  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: ALT_TEXT_MAX_LENGTH,
    example: 'A red sun setting over a calm sea',
  })
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(ALT_TEXT_MAX_LENGTH)
  altText!: string | null;
}
