import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Auth, WorkspaceId } from './workspace.decorator';
import type { AuthContext } from './auth-context';
import { RequiredScope } from './scope.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ApiPageResponse, Page, PageQueryDto } from '../common/pagination/pagination';
import { rateLimitConfig } from '../config';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { Idempotent } from '../common/decorators/idempotent.decorator';

@ApiTags('API keys')
@Controller('api-keys')
export class ApiKeysController {
  constructor(
    private readonly service: ApiKeysService,
    @Inject(rateLimitConfig.KEY) private readonly limits: ConfigType<typeof rateLimitConfig>,
  ) {}

  @Get()
  @RequiredScope('keys:manage')
  @ApiOperation({ summary: "List the workspace's API keys (never their secrets)" })
  @ApiPageResponse(ApiKeyDto)
  @ApiErrors(400)
  async listApiKeys(@WorkspaceId() workspaceId: string, @Query() query: PageQueryDto): Promise<Page<ApiKeyDto>> {
    const page = await this.service.list(workspaceId, query.limit, query.cursor);
    return { data: page.data.map((k) => ApiKeyDto.from(k, this.limits)), nextCursor: page.nextCursor };
  }

  @Post()
  @Idempotent()
  @RequiredScope('keys:manage')
  @ApiOperation({
    summary: 'Create an API key in this workspace; the key is returned once',
    description:
      '`scopes` limits what the key may do (default `["*"]`, every scope). A key cannot give the new key a scope ' +
      'it does not hold itself (403 FORBIDDEN naming them).',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrors(400)
  async createApiKey(@Auth() auth: AuthContext, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const { apiKey, key } = await this.service.create(auth.workspaceId, {
      name: body.name,
      environment: body.environment,
      expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
      scopes: body.scopes,
      creatorScopes: auth.scopes,
    });
    return { ...ApiKeyDto.from(apiKey, this.limits), key };
  }

  @Delete(':id')
  @RequiredScope('keys:manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key (effective on the next request)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(400, 404)
  async revokeApiKey(@WorkspaceId() workspaceId: string, @Param() { id }: IdParamDto): Promise<void> {
    await this.service.revoke(workspaceId, id);
  }
}
