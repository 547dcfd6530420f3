import { Controller, Get, Header, HttpCode, Options, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { OAuthProtocolError } from './oauth-protocol';
import { OAUTH_PATHS, OAuthServerService, baseUrlOf } from './oauth-server.service';

/**
 * Agents in browsers call these from other origins: they carry no cookie and no ambient authority, so
 * any origin may read the answers.
 */
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, MCP-Protocol-Version',
  'Access-Control-Max-Age': '86400',
};

/**
 * The OAuth 2.1 endpoints of the authorization server for remote MCP agents (docs/adr/0043), beside
 * /api: metadata (RFC 8414), registration (RFC 7591), authorization (handed to the console's consent
 * page), token and revocation (RFC 7009). Public to the API's guard: these are how an agent gets a
 * token in the first place. Their errors are OAuth's `{error, error_description}`, not the API's shape.
 * Not in the OpenAPI document: the RFCs describe them.
 */
@ApiExcludeController()
@Public()
@Controller()
export class OAuthServerController {
  constructor(private readonly oauth: OAuthServerService) {}

  @Get('.well-known/oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=3600')
  metadata(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Record<string, unknown> {
    void reply.headers(CORS);
    return this.oauth.metadata(baseUrlOf(req));
  }

  /** The browser goes on to the console, where the session cookie lives (path /console). */
  @Get('oauth/authorize')
  authorize(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const q = req.url.indexOf('?');
    void reply
      .status(302)
      .header('Cache-Control', 'no-store')
      .header('Location', `${OAUTH_PATHS.consent}${q >= 0 ? req.url.slice(q) : ''}`)
      .send();
  }

  @Post('oauth/register')
  register(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(reply, 201, () => this.oauth.register(req.body, req.ip));
  }

  @Post('oauth/token')
  token(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(reply, 200, () => this.oauth.token(paramsOf(req), baseUrlOf(req)));
  }

  @Post('oauth/revoke')
  revoke(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(reply, 200, async () => {
      await this.oauth.revokeToken(paramsOf(req));
      return {};
    });
  }

  /** CORS preflight of the endpoints agents in browsers call. */
  @Options(['.well-known/oauth-authorization-server', 'oauth/register', 'oauth/token', 'oauth/revoke'])
  @HttpCode(204)
  preflight(@Res({ passthrough: true }) reply: FastifyReply): void {
    void reply.headers(CORS);
  }

  private async answer(reply: FastifyReply, status: number, run: () => Promise<object>): Promise<void> {
    void reply.headers(CORS).header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
    try {
      const body = await run();
      void reply.status(status).send(body);
    } catch (err) {
      if (!(err instanceof OAuthProtocolError)) throw err;
      void reply.status(err.status).send({ error: err.error, error_description: err.description });
    }
  }
}

/** The form (or JSON) parameters of a token or revocation request. */
function paramsOf(req: FastifyRequest): Record<string, unknown> {
  const body = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthProtocolError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  }
  return body as Record<string, unknown>;
}
