import { Controller, Get, Header, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { MCP_SCOPES } from './mcp-tools';
import { McpService } from './mcp.service';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of `/mcp`, which every 401 of /mcp names in
 * `WWW-Authenticate`. At the well-known path and at its path-suffixed form for the resource `/mcp`
 * (`/.well-known/oauth-protected-resource/mcp`), where MCP clients look first. It names this service
 * as its authorization server (oauth-server/, docs/adr/0043); API keys are taken as bearer tokens too.
 */
@ApiExcludeController()
@Public()
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(private readonly mcp: McpService) {}

  @Get(['', 'mcp'])
  @Header('Cache-Control', 'public, max-age=3600')
  metadata(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Record<string, unknown> {
    // Agents in browsers read it from other origins; it holds nothing private.
    void reply.header('Access-Control-Allow-Origin', '*');
    const base = this.mcp.baseUrl(req);
    return {
      resource: `${base}/mcp`,
      authorization_servers: [base],
      resource_name: 'Social Publishing Service (MCP)',
      bearer_methods_supported: ['header'],
      scopes_supported: MCP_SCOPES,
      resource_documentation: `${base}/api/docs`,
    };
  }
}
