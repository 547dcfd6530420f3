import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Public } from '../common/decorators/public.decorator';
import { WorkspaceId } from '../common/decorators/workspace.decorator';
import { OAuthAuthorizationDto } from './dto/oauth-authorization.dto';
import { OAuthProviderParamDto } from './dto/oauth-provider-param.dto';
import { StartOAuthDto } from './dto/start-oauth.dto';
import { OAuthCallbackError, OAuthService } from './oauth.service';
import { renderOAuthPage } from './oauth-page';

/**
 * The OAuth connection of a channel: `POST /api/channels/connect/{provider}` starts it (API key),
 * `GET /api/oauth/{provider}/callback` finishes it (public: the single-use state authenticates it).
 */
@ApiTags('Channels')
@Controller()
export class OAuthController {
  constructor(private readonly oauth: OAuthService) {}

  @Post('channels/connect/:provider')
  @ApiOperation({
    summary: 'Start connecting an account by OAuth',
    description:
      "Answers the network's authorization URL (authorization code with PKCE, S256) and a state that is " +
      "single-use, bound to this workspace and valid 10 minutes. Open the URL in the user's browser; the " +
      'network sends it back to `/api/oauth/{provider}/callback`, which creates or reactivates the channel ' +
      'and redirects to `redirectUri` with `channelId` (or `error`). A provider without app credentials on ' +
      'this server (see `GET /api/providers`, `enabled`) answers 400.',
  })
  @ApiCreatedResponse({ type: OAuthAuthorizationDto })
  @ApiErrors(400, 404)
  async connect(
    @WorkspaceId() workspaceId: string,
    @Param() { provider }: OAuthProviderParamDto,
    @Body() body: StartOAuthDto,
  ): Promise<OAuthAuthorizationDto> {
    const start = await this.oauth.start(workspaceId, provider, body.redirectUri);
    return { ...start, expiresAt: start.expiresAt.toISOString() };
  }

  @Get('oauth/:provider/callback')
  @Public()
  @ApiOperation({
    summary: 'OAuth callback (the network redirects the browser here)',
    description:
      'No API key: the state authenticates the request and is consumed by it. Exchanges the code, creates or ' +
      'reactivates the channel in the workspace that started the authorization, then redirects (302) to the ' +
      '`redirectUri` given at the start with `channelId`, or shows a small HTML page when there was none. A ' +
      'replayed, expired or unknown state, or a `redirectUri` differing from the one the authorization was ' +
      'started with, gets a 400 HTML page and creates nothing. Other failures redirect with `error`.',
    security: [],
  })
  @ApiQuery({ name: 'code', required: false, type: String })
  @ApiQuery({ name: 'state', required: false, type: String })
  @ApiQuery({ name: 'error', required: false, type: String, description: 'Set by the network when access was refused' })
  @ApiOkResponse({ description: 'Connected (HTML page)', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiFoundResponse({ description: 'Redirect to the redirectUri with channelId or error' })
  @ApiBadRequestResponse({
    description:
      'Invalid, replayed, expired or foreign state, or a tampered redirectUri (HTML page naming the error code)',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  async callback(
    @Param() { provider }: OAuthProviderParamDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const raw = (req.query ?? {}) as Record<string, unknown>;
    const pick = (name: string): string | undefined => {
      const value = raw[name];
      return typeof value === 'string' ? value : undefined;
    };
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    try {
      const result = await this.oauth.callback(provider, {
        code: pick('code'),
        state: pick('state'),
        error: pick('error'),
        redirectUri: pick('redirectUri'),
      });
      if (result.redirectUri) {
        await reply.redirect(withQuery(result.redirectUri, { channelId: result.channelId }), 302);
        return;
      }
      await reply
        .status(result.created ? 201 : 200)
        .type('text/html; charset=utf-8')
        .send(
          renderOAuthPage(
            'Account connected',
            `The channel ${result.channelId} is connected. You can close this window.`,
          ),
        );
    } catch (err) {
      if (!(err instanceof OAuthCallbackError)) throw err;
      if (err.redirectUri) {
        await reply.redirect(withQuery(err.redirectUri, { error: err.code }), 302);
        return;
      }
      await reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(renderOAuthPage('Connection failed', err.message, err.code));
    }
  }
}

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
