import { RequiredScope } from '../auth/scope.decorator';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page, PageQueryDto } from '../common/pagination/pagination';
import { SandboxPostDto } from './dto/sandbox-post.dto';
import { SandboxService } from './sandbox.service';

@ApiTags('Sandbox')
@Controller('channels')
export class SandboxController {
  constructor(private readonly sandbox: SandboxService) {}

  @Get(':id/sandbox/posts')
  @RequiredScope('channels:read')
  @ApiOperation({
    summary: "A sandbox channel's timeline",
    description:
      'What the sandbox network received from this channel, newest first (docs/guide.md section 11). ' +
      '404 for channels of other networks.',
  })
  @ApiPageResponse(SandboxPostDto)
  @ApiErrors(400, 404)
  async listSandboxPosts(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Query() query: PageQueryDto,
  ): Promise<Page<SandboxPostDto>> {
    const page = await this.sandbox.timeline(workspaceId, id, query);
    return { data: page.data.map((p) => SandboxPostDto.from(p)), nextCursor: page.nextCursor };
  }
}
