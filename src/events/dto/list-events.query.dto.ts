import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { EVENT_TYPES, EventType } from '../event-payloads';

export class ListEventsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: EVENT_TYPES, description: 'Only events of this type' })
  @IsOptional()
  @IsIn(EVENT_TYPES)
  type?: EventType;
}
