import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, MaxLength } from 'class-validator';

export class ChooseTargetsDto {
  /** Ids of the targets to connect, from `GET /api/oauth/connections/{id}`; each becomes a channel. */
  @ApiProperty({ example: ['urn:li:person:782bbtaQ', 'urn:li:organization:2414183'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  targetIds!: string[];
}
