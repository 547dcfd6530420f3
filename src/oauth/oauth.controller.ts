import { RequiredScope } from '../auth/scope.decorator';
import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  getSchemaPath,
  ApiCreatedResponse,
  ApiFoundResponse,
  ApiGoneResponse,
  ApiOkResponse,
  ApiSeeOtherResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelDto } from '../channels/dto/channel.dto';
import { ApiErrors } from '../common/decorators/api-errors.decorator';
import { Public } from '../common/decorators/public.decorator';
import { WorkspaceId } from '../auth/workspace.decorator';
import { IdParamDto } from '../common/id-param.dto';
import { ChooseTargetsDto } from './dto/choose-targets.dto';
import { OAuthChannelsDto, OAuthConnectionDto } from './dto/oauth-connection.dto';
import { OAuthProviderParamDto } from '../channels/dto/oauth-provider-param.dto';
import { OAuthCallbackError, OAuthService } from './oauth.service';
import { renderConnectionPage, renderOAuthPage } from './oauth-page';
import { Idempotent } from '../common/decorators/idempotent.decorator';
import { ErrorResponseDto } from '../common/errors/error-response.dto';

/**
 * The OAuth connection of a channel: `POST /api/channels/connect/{provider}` starts it (API key; in
 * ChannelsController, which reaches OAuthService through channels' CHANNEL_OAUTH port),
 * `GET /api/oauth/{provider}/callback` finishes it (public: the single-use state authenticates it),
 * and when the authorization reaches several accounts, `GET /api/oauth/connections/{id}` lists them
 * and `POST /api/oauth/connections/{id}/channels` connects the chosen ones (API key).
 */
@ApiTags('Channels')
@Controller()
export class OAuthController {
  constructor(private readonly oauth: OAuthService) {}

  @Get('oauth/:provider/callback')
  @Public()
  @ApiOperation({
    summary: 'OAuth callback (the network redirects the browser here)',
    description:
      'No API key: the state authenticates the request and is consumed by it. Exchanges the code, creates or ' +
      'reactivates the channel in the workspace that started the authorization, then redirects (302) to the ' +
      '`redirectUri` given at the start with `channelId`, or shows a small HTML page when there was none. When ' +
      'the authorization reaches several accounts, nothing is created yet: the redirect carries `connectionId` ' +
      '(a pending connection of that workspace, valid OAUTH_CONNECTION_TTL_SECONDS, usable once), or the page ' +
      'lists the accounts. A ' +
      'replayed, expired or unknown state, or a `redirectUri` differing from the one the authorization was ' +
      'started with, gets a 400 HTML page and creates nothing. Other failures redirect with `error`. ' +
      "An authorization started from a hosted connect link ends with a 303 to the link's `redirectUrl` with " +
      '`connectLinkId` and `status=connected&channelId=...` or `status=error&error=...` (several accounts: a 303 ' +
      "to the link's page listing them); a link revoked or expired meanwhile gets a 410 HTML page and connects " +
      'nothing.',
    security: [],
  })
  @ApiQuery({ name: 'code', required: false, type: String })
  @ApiQuery({ name: 'state', required: false, type: String })
  @ApiQuery({ name: 'error', required: false, type: String, description: 'Set by the network when access was refused' })
  @ApiOkResponse({
    description: 'Connected, or the accounts to choose from (HTML page)',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiCreatedResponse({
    description: 'Connected: a new channel was created (HTML page)',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiFoundResponse({ description: 'Redirect to the redirectUri with channelId, connectionId or error' })
  @ApiSeeOtherResponse({
    description: "Started from a connect link: redirect to the link's redirectUrl with the outcome",
  })
  @ApiGoneResponse({
    description: 'Started from a connect link that was revoked or expired meanwhile (HTML page); nothing connected',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiBadRequestResponse({
    description:
      'Invalid, replayed, expired or foreign state, or a tampered redirectUri (HTML page naming the error code); ' +
      'a malformed path or query (the error shape, as JSON)',
    content: {
      'text/html': { schema: { type: 'string' } },
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorResponseDto) },
        example: {
          error: 'VALIDATION_ERROR',
          message: 'provider must be a provider id',
          details: [{ field: 'provider', message: 'must be a provider id' }],
        },
      },
    },
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
      if (result.kind === 'choose') {
        if (result.connectLinkId) {
          // The connect link's own page lets the person choose (src/console/connect-page.controller.ts).
          await reply.redirect(`/connect/choose/${result.connection.id}`, 303);
          return;
        }
        if (result.redirectUri) {
          await reply.redirect(withQuery(result.redirectUri, { connectionId: result.connection.id }), 302);
          return;
        }
        await reply.status(200).type('text/html; charset=utf-8').send(renderConnectionPage(result.connection));
        return;
      }
      if (result.connectLinkId && result.redirectUri) {
        const outcome = { connectLinkId: result.connectLinkId, status: 'connected', channelId: result.channelId };
        await reply.redirect(withQuery(result.redirectUri, outcome), 303);
        return;
      }
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
      if (err.code === 'link_gone') {
        await reply
          .status(410)
          .type('text/html; charset=utf-8')
          .send(
            renderOAuthPage(
              'This link can no longer be used',
              'The connect link was revoked or has expired: nothing was connected. Ask for a new link.',
              err.code,
            ),
          );
        return;
      }
      if (err.connectLinkId && err.redirectUri) {
        const outcome = { connectLinkId: err.connectLinkId, status: 'error', error: err.code };
        await reply.redirect(withQuery(err.redirectUri, outcome), 303);
        return;
      }
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

  @Get('oauth/connections/:id')
  @RequiredScope('channels:manage')
  @ApiOperation({
    summary: 'List the accounts an authorization reaches',
    description:
      "A pending connection (from the callback's `connectionId`) of this workspace: every account the " +
      'authorization may publish as (the member first, then the pages they administer), with the existing ' +
      'channel of each. 409 once it was used or expired.',
  })
  @ApiOkResponse({ type: OAuthConnectionDto })
  @ApiErrors(400, 404, 409)
  async getOAuthConnection(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
  ): Promise<OAuthConnectionDto> {
    return OAuthConnectionDto.from(await this.oauth.getConnection(workspaceId, id));
  }

  @Post('oauth/connections/:id/channels')
  @RequiredScope('channels:manage')
  @Idempotent()
  @ApiOperation({
    summary: 'Connect the chosen accounts of an authorization',
    description:
      'Creates (or reactivates) one channel per target id, each publishing as its account (LinkedIn: the member ' +
      "or organization URN as the author). They share the authorization's tokens, refreshed together. " +
      'Consumes the connection: a second call is 409. Unknown target ids are 400 and consume nothing.',
  })
  @ApiCreatedResponse({ type: OAuthChannelsDto })
  @ApiErrors(400, 404, 409)
  async connectOAuthTargets(
    @WorkspaceId() workspaceId: string,
    @Param() { id }: IdParamDto,
    @Body() body: ChooseTargetsDto,
  ): Promise<OAuthChannelsDto> {
    const saved = await this.oauth.chooseTargets(workspaceId, id, body.targetIds);
    return { data: saved.map((s) => ChannelDto.from(s.channel)) };
  }
}

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
