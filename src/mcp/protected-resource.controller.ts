import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { MCP_SCOPES } from './mcp-tools';
import { McpService } from './mcp.service';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of `/mcp`, which every 401 of /mcp names in
 * `WWW-Authenticate`. At the well-known path and at its path-suffixed form for the resource `/mcp`
 * (`/.well-known/oauth-protected-resource/mcp`), where MCP clients look first. It lists no
 * authorization server yet: the resource takes API keys as bearer tokens (docs/adr/0037).
 */
@ApiExcludeController()
@Public()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(private readonly mcp: McpService) {}

  @Get(['', 'mcp'])
  @Header('Cache-Control', 'public, max-age=3600')
  metadata(@Req() req: FastifyRequest): Record<string, unknown> {
    const base = this.mcp.baseUrl(req);
    return {
      resource: `${base}/mcp`,
      resource_name: 'Social Publishing Service (MCP)',
      bearer_methods_supported: ['header'],
      scopes_supported: MCP_SCOPES,
      resource_documentation: `${base}/api/docs`,
    };
  }
}
