import { RequiredScope } from '../auth/scope.decorator';
import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '../auth/workspace.decorator';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { FreeSlotsDto, FreeSlotsQueryDto } from './dto/free-slots.dto';
import { PUT_POSTING_SCHEDULE_EXAMPLES, PostingScheduleDto, PutPostingScheduleDto } from './dto/posting-schedule.dto';
import { PostingSchedulesService } from './posting-schedules.service';

/** A channel's posting schedule (`/channels/{id}/schedule`) and its free slots (`/channels/{id}/slots`). */
@ApiTags('Channels')
@Controller('channels')
export class PostingSchedulesController {
  constructor(private readonly schedules: PostingSchedulesService) {}

  @Get(':id/schedule')
  @RequiredScope('channels:read')
  @ApiOperation({
    summary: "Get a channel's posting schedule",
    description:
      'Weekly local times in an IANA time zone where queued posts go; `timezone: null` and no slots while none is set.',
  })
  @ApiOkResponse({ type: PostingScheduleDto })
  @ApiErrors(400, 404)
  getPostingSchedule(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<PostingScheduleDto> {
    return this.schedules.get(workspaceId, id);
  }

  @Put(':id/schedule')
  @RequiredScope('channels:manage')
  @ApiOperation({
    summary: "Set a channel's posting schedule",
    description:
      'Replaces the schedule: slots are local times of `timezone` (an IANA name), sorted and kept once. A local ' +
      'time that does not exist on a spring-forward day is used at the moment the clocks jump; one that occurs ' +
      'twice in autumn is used once, at its first occurrence. Posts already scheduled or queued stay where they are.',
  })
  @ApiBody({ type: PutPostingScheduleDto, examples: PUT_POSTING_SCHEDULE_EXAMPLES })
  @ApiOkResponse({ type: PostingScheduleDto })
  @ApiErrors(400, 404)
  putPostingSchedule(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: PutPostingScheduleDto,
  ): Promise<PostingScheduleDto> {
    return this.schedules.put(workspaceId, id, body);
  }

  @Get(':id/slots')
  @RequiredScope('channels:read')
  @ApiOperation({
    summary: "List a channel's next free slots",
    description:
      'The next slot instants of the posting schedule, from `from` (never before now), that no scheduled or queued ' +
      'post of the workspace occupies on this channel; UTC, earliest first, within 366 days. Empty without a schedule.',
  })
  @ApiOkResponse({ type: FreeSlotsDto })
  @ApiErrors(400, 404)
  async listFreeSlots(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Query() query: FreeSlotsQueryDto,
  ): Promise<FreeSlotsDto> {
    const slots = await this.schedules.freeSlots(workspaceId, id, query);
    return { data: slots.map((at) => ({ at: at.toISOString() })) };
  }
}
