import { Controller, Delete, Get, Header, HttpCode, Options, Patch, Post, Put, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { ERROR_FORMAT, type ErrorFormat } from '../common/errors';
import { OAuthProtocolError, oauthErrorBody, oauthErrorOf } from './oauth-protocol';
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

/** What every answer of the registration, token and revocation endpoints carries, errors included. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * The OAuth shape (`{error, error_description}`, no-store, CORS) of every error the API's filter
 * answers on these endpoints: a body too large, malformed, of the wrong type or holding a NUL, a
 * dependency down (docs/adr/0043). `readError` names a request that could not be read.
 */
const oauthErrors =
  (readError: 'invalid_request' | 'invalid_client_metadata'): ErrorFormat =>
  ({ status, body }) => ({ status, body: oauthErrorOf(status, body, readError), headers: { ...CORS, ...NO_STORE } });

/** `application/json` in any letter case, with or without parameters. */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** The endpoints that take POST only. */
const POST_ONLY = ['oauth/register', 'oauth/token', 'oauth/revoke'];

/**
 * The OAuth 2.1 endpoints of the authorization server for remote MCP agents (docs/adr/0043), beside
 * /api: metadata (RFC 8414), registration (RFC 7591), authorization (handed to the console's consent
 * page), token and revocation (RFC 7009). Public to the API's guard: these are how an agent gets a
 * token in the first place. Every error of registration, token and revocation is OAuth's
 * `{error, error_description}` with `Cache-Control: no-store`, not the API's shape: the protocol's own
 * refusals (OAuthProtocolError) here, everything before or around them through the global filter and
 * the routes' ERROR_FORMAT. Not in the OpenAPI document: the RFCs describe them.
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

  /** RFC 7591: the client metadata is a JSON object. */
  @Post('oauth/register')
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_client_metadata') })
  register(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(reply, 201, () => {
      if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
        throw new OAuthProtocolError('invalid_client_metadata', 'Send the client metadata as application/json', 415);
      }
      return this.oauth.register(req.body, req.ip);
    });
  }

  @Post('oauth/token')
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
  token(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(reply, 200, () => this.oauth.token(paramsOf(req), baseUrlOf(req)));
  }

  @Post('oauth/revoke')
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
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

  /** Any other method on the POST endpoints: 405 in the OAuth shape, rather than the API's 404. */
  @Get(POST_ONLY)
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
  notAllowedGet(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.notAllowed(req, reply);
  }

  @Put(POST_ONLY)
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
  notAllowedPut(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.notAllowed(req, reply);
  }

  @Patch(POST_ONLY)
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
  notAllowedPatch(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.notAllowed(req, reply);
  }

  @Delete(POST_ONLY)
  @RouteConfig({ [ERROR_FORMAT]: oauthErrors('invalid_request') })
  notAllowedDelete(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.notAllowed(req, reply);
  }

  private notAllowed(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    void reply.header('Allow', 'POST, OPTIONS');
    return this.answer(reply, 405, () => {
      throw new OAuthProtocolError('invalid_request', `Use POST: ${req.method} is not allowed here`, 405);
    });
  }

  private async answer(reply: FastifyReply, status: number, run: () => object | Promise<object>): Promise<void> {
    void reply.headers({ ...CORS, ...NO_STORE });
    try {
      const body = await run();
      void reply.status(status).send(body);
    } catch (err) {
      if (!(err instanceof OAuthProtocolError)) throw err; // the filter, in this route's ERROR_FORMAT
      void reply.status(err.status).send(oauthErrorBody(err.error, err.description));
    }
  }
}

/** The form (or JSON) parameters of a token or revocation request. */
function paramsOf(req: FastifyRequest): Record<string, unknown> {
  const body = req.body;
  if (typeof body === 'string') {
    // text/plain, which Fastify reads as a string: the wrong content type.
    throw new OAuthProtocolError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded', 415);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthProtocolError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  }
  return body as Record<string, unknown>;
}
