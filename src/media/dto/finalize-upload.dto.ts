import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class FinalizeUploadDto {
  /** The id returned by initialize. */
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a UUID' })
  mediaId!: string;
}
