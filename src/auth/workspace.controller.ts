import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { WorkspaceDto, UpdateWorkspaceDto } from './dto/workspace.dto';
import { RequiredScope } from './scope.decorator';
import { WorkspaceId } from './workspace.decorator';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspace')
@Controller('workspace')
export class WorkspaceController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @RequiredScope('posts:read')
  @ApiOperation({ summary: "The calling key's workspace and its settings" })
  @ApiOkResponse({ type: WorkspaceDto })
  async getWorkspace(@WorkspaceId() workspaceId: string): Promise<WorkspaceDto> {
    return WorkspaceDto.from(await this.workspaces.get(workspaceId));
  }

  @Patch()
  @RequiredScope('posts:approve')
  @ApiOperation({
    summary: "Change the workspace's settings",
    description: '`approvalRequired: true` holds every post that would go out for an approval, whichever key made it.',
  })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiErrors(400)
  async updateWorkspace(@WorkspaceId() workspaceId: string, @Body() body: UpdateWorkspaceDto): Promise<WorkspaceDto> {
    return WorkspaceDto.from(await this.workspaces.update(workspaceId, body));
  }
}
