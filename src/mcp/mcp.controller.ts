import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { McpService } from './mcp.service';

/**
 * `/mcp`, beside `/api`: the Model Context Protocol over Streamable HTTP (docs/guide.md, "Agents
 * (MCP)"). Public to the global guard because McpService authenticates itself: its 401 names the
 * protected-resource metadata (`WWW-Authenticate`), and its rate limit is taken per tool call rather
 * than per HTTP request. Not in the OpenAPI document: JSON-RPC is not a REST operation.
 */
@ApiExcludeController()
@Public()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @All()
  handle(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.mcp.handle(req, reply);
  }
}
