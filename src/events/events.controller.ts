import { RequiredScope } from '../auth/scope.decorator';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { ApiPageResponse, Page } from '../common/pagination/pagination';
import { EventDto } from './dto/event.dto';
import { ListEventsQueryDto } from './dto/list-events.query.dto';
import { EventsService } from './events.service';

@ApiTags('Events')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequiredScope('events:read')
  @ApiOperation({ summary: "The workspace's events, newest first (catch up after downtime)" })
  @ApiPageResponse(EventDto)
  @ApiErrors(400)
  async listEvents(@WorkspaceId() workspaceId: string, @Query() query: ListEventsQueryDto): Promise<Page<EventDto>> {
    const page = await this.events.list(workspaceId, query);
    return { data: page.data.map((e) => EventDto.from(e)), nextCursor: page.nextCursor };
  }
}
