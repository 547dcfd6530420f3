import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceDto } from '../auth/dto/workspace.dto';
import { RequiredScope } from '../auth/scope.decorator';
import { OrganizationId } from '../auth/workspace.decorator';
import { WorkspacesService } from '../auth/workspaces.service';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Idempotent } from '../common/decorators/idempotent.decorator';
import { AppError } from '../common/errors';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page } from '../common/pagination/pagination';
import {
  CreateWorkspaceDto,
  ListWorkspacesQueryDto,
  ChangeWorkspaceDto,
  UsageQueryDto,
  USAGE_DEFAULT_DAYS,
  USAGE_MAX_DAYS,
  WorkspaceUsageDto,
} from './dto/workspaces.dto';
import { WorkspaceErasureService } from './workspace-erasure.service';
import { WorkspaceUsageService } from './workspace-usage.service';

const DAY_MS = 86_400_000;

/**
 * The workspaces of the calling key's organization (docs/adr/0052): a platform makes one per customer,
 * acts in it with `X-Workspace-Id`, reads its usage and erases it.
 */
@ApiTags('Workspaces')
@Controller('workspaces')
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly usage: WorkspaceUsageService,
    private readonly erasure: WorkspaceErasureService,
  ) {}

  @Post()
  @Idempotent()
  @RequiredScope('workspaces:manage')
  @ApiOperation({
    summary: 'Create a workspace in your organization',
    description:
      'A workspace per customer of your product: act in it with the header `X-Workspace-Id`. `name` and ' +
      '`externalId` are unique in the organization (409 CONFLICT).',
  })
  @ApiCreatedResponse({ type: WorkspaceDto })
  @ApiErrors(400, 409)
  async createWorkspace(
    @OrganizationId() organizationId: string,
    @Body() body: CreateWorkspaceDto,
  ): Promise<WorkspaceDto> {
    const workspace = await this.workspaces.create(organizationId, {
      name: body.name.trim(),
      externalId: body.externalId ?? null,
      metadata: body.metadata ?? {},
    });
    return WorkspaceDto.from(workspace);
  }

  @Get()
  @RequiredScope('workspaces:manage')
  @ApiOperation({ summary: "List your organization's workspaces, oldest first (filter: `externalId`)" })
  @ApiPageResponse(WorkspaceDto)
  @ApiErrors(400)
  async listWorkspaces(
    @OrganizationId() organizationId: string,
    @Query() query: ListWorkspacesQueryDto,
  ): Promise<Page<WorkspaceDto>> {
    const page = await this.workspaces.list(organizationId, query.limit, query.cursor, query.externalId);
    return { data: page.data.map((w) => WorkspaceDto.from(w)), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @RequiredScope('workspaces:manage')
  @ApiOperation({ summary: 'Get a workspace of your organization' })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiErrors(400, 404)
  async getWorkspaceById(@OrganizationId() organizationId: string, @Param() { id }: IdParamDto): Promise<WorkspaceDto> {
    return WorkspaceDto.from(await this.workspaces.getInOrganization(organizationId, id));
  }

  @Patch(':id')
  @RequiredScope('workspaces:manage')
  @ApiOperation({ summary: "Change a workspace's name, externalId or metadata" })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiErrors(400, 404, 409)
  async updateWorkspaceById(
    @OrganizationId() organizationId: string,
    @Param() { id }: IdParamDto,
    @Body() body: ChangeWorkspaceDto,
  ): Promise<WorkspaceDto> {
    const workspace = await this.workspaces.change(organizationId, id, {
      ...(body.name !== undefined ? { name: body.name.trim() } : {}),
      ...(body.externalId !== undefined ? { externalId: body.externalId } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    });
    return WorkspaceDto.from(workspace);
  }

  @Delete(':id')
  @RequiredScope('workspaces:manage')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Erase a workspace and everything in it',
    description:
      'Answers at once: from then on the workspace is 404 and its keys answer 401 (on every instance). In the ' +
      'background its channels are revoked at the networks that offer it, its media bytes deleted, and every row of it ' +
      'removed; then `workspace.deleted` goes to the webhooks of the other workspaces of the organization that ' +
      'subscribe to it. Cannot be undone.',
  })
  @ApiAcceptedResponse({ description: 'Erasure started' })
  @ApiErrors(400, 404)
  async deleteWorkspaceById(@OrganizationId() organizationId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.erasure.request(organizationId, id);
  }

  @Get(':id/usage')
  @RequiredScope('workspaces:manage')
  @ApiOperation({
    summary: "A workspace's usage in a window: posts created, targets published and failed, media bytes",
    description:
      `The window is [from, to): \`to\` defaults to now, \`from\` to ${USAGE_DEFAULT_DAYS} days before \`to\`; ` +
      `\`from\` must be before \`to\` and the window at most ${USAGE_MAX_DAYS} days (400 otherwise). ` +
      '`mediaBytes` is what the workspace stores now, whatever the window.',
  })
  @ApiOkResponse({ type: WorkspaceUsageDto })
  @ApiErrors(400, 404)
  async getWorkspaceUsage(
    @OrganizationId() organizationId: string,
    @Param() { id }: IdParamDto,
    @Query() query: UsageQueryDto,
  ): Promise<WorkspaceUsageDto> {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - USAGE_DEFAULT_DAYS * DAY_MS);
    if (from.getTime() >= to.getTime()) {
      throw AppError.invalid([{ field: 'from', message: 'must be before to' }]);
    }
    if (to.getTime() - from.getTime() > USAGE_MAX_DAYS * DAY_MS) {
      throw AppError.invalid([{ field: 'from', message: `must be at most ${USAGE_MAX_DAYS} days before to` }]);
    }
    const workspace = await this.workspaces.getInOrganization(organizationId, id);
    const usage = await this.usage.usage(workspace.id, from, to);
    return { ...usage, from: from.toISOString(), to: to.toISOString() };
  }
}
