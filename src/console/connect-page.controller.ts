import { Controller, Get, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChannelsService } from '../channels/channels.service';
import { Public } from '../common/decorators/public.decorator';
import { AppError } from '../common/errors';
import type { ConnectLink } from '../connect-links/connect-link.entity';
import { ConnectLinksService, hashLinkToken } from '../connect-links/connect-links.service';
import { connectLinkStatus } from '../connect-links/dto/connect-link.dto';
import { OAuthAppsService } from '../oauth/oauth-apps.service';
import { OAuthService } from '../oauth/oauth.service';
import type { ProviderDto } from '../providers/dto/provider.dto';
import type { ProviderId } from '../providers/provider.list';
import { ProviderRegistry } from '../providers/provider.registry';
import { ProvidersService } from '../providers/providers.service';
import { ConnectPageLimiter } from './connect-page-limiter.service';
import { ConsoleCsrfService } from './console-csrf.service';
import {
  CONNECT_LINK_COOKIE,
  CONNECT_PAGE_PATH,
  field,
  fields as formFields,
  readCookie,
  redirect,
  sendPage,
  setCookie,
} from './console-http';
import { CredentialField, credentialFields, credentialValue } from './credential-fields';
import { hostedChoosePage, hostedLinkPage, hostedMessagePage, hostedNetworkPage } from './views/connect.page';
import type { Html } from './views/html';

const CREDENTIAL_PREFIX = 'credentials.';
/** How long the browser remembers the link of an authorization it started (the state lives 10 minutes). */
const CHOOSE_COOKIE_MAX_AGE_S = 3600;

/** A link that may connect now, with what its token opened. */
interface OpenLink {
  link: ConnectLink;
  /** The token of the page's URL; null on the page choosing accounts (reached through the cookie). */
  token: string | null;
  /** The hash of the token: what the CSRF token and the rate limit are bound to (never the token). */
  key: string;
}

/**
 * The hosted connect page of a link (docs/adr/0055): `/connect/{token}`, no sign-in. It lists the
 * networks the link allows; a network's page runs its OAuth flow (the callback ends on the link's
 * redirect URL) or shows its credentials form. The token is a secret: it is never logged (the access
 * log shows `/connect/{token}`), and the pages send no referrer.
 */
@ApiExcludeController()
@Public()
@Controller('connect')
export class ConnectPageController {
  private readonly logger = new Logger('ConnectPage');
  private readonly forms = new Map<string, CredentialField[]>();

  constructor(
    private readonly links: ConnectLinksService,
    private readonly channels: ChannelsService,
    private readonly providers: ProvidersService,
    private readonly registry: ProviderRegistry,
    private readonly oauth: OAuthService,
    private readonly oauthApps: OAuthAppsService,
    private readonly csrf: ConsoleCsrfService,
    private readonly limiter: ConnectPageLimiter,
  ) {}

  /**
   * The accounts an authorization started from a link reaches (a LinkedIn member and their pages,
   * Pinterest boards): the OAuth callback sends the browser here. The link is the one whose
   * authorization this browser started (its cookie); the connection must be of the link's workspace.
   */
  @Get('choose/:connectionId')
  async chooseForm(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('connectionId') connectionId: string,
  ) {
    await this.guarded(req, reply, { key: readCookie(req, CONNECT_LINK_COOKIE) ?? '' }, async (open) => {
      const pending = await this.oauth.getConnection(open.link.workspaceId, connectionId).catch((err: unknown) => {
        if (err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'CONFLICT')) return null;
        throw err;
      });
      if (!pending) return redirect(reply, outcomeUrl(open.link, { status: 'error', error: 'expired_state' }));
      const csrf = this.csrf.connectTokenFor(req, reply, open.key);
      const network = this.registry.has(pending.provider) ? this.registry.plugin(pending.provider).displayName : '';
      this.send(
        reply,
        open,
        hostedChoosePage({ link: open.link, csrf, connectionId, network, targets: pending.targets }),
      );
    });
  }

  @Post('choose/:connectionId')
  async choose(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('connectionId') connectionId: string) {
    await this.guarded(req, reply, { key: readCookie(req, CONNECT_LINK_COOKIE) ?? '' }, async (open) => {
      if (!this.csrf.verifyConnect(req, open.key, field(req, '_csrf'))) {
        return this.message(reply, 403, 'This form has expired', 'Start again from the link.', open);
      }
      try {
        const saved = await this.oauth.chooseTargets(open.link.workspaceId, connectionId, formFields(req, 'targetIds'));
        const url = new URL(outcomeUrl(open.link, { status: 'connected' }));
        for (const s of saved) url.searchParams.append('channelId', s.channel.id);
        redirect(reply, url.toString());
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'VALIDATION_ERROR') return redirect(reply, `${CONNECT_PAGE_PATH}/choose/${connectionId}`);
        if (err.code !== 'NOT_FOUND' && err.code !== 'CONFLICT') throw err;
        redirect(reply, outcomeUrl(open.link, { status: 'error', error: 'expired_state' }));
      }
    });
  }

  @Get(':token')
  async landing(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('token') token: string) {
    await this.guarded(req, reply, { token }, async (open) => {
      this.send(reply, open, hostedLinkPage({ link: open.link, token, networks: this.networksOf(open.link) }));
    });
  }

  /** The person gives up: back to the platform with `status=error&error=cancelled`. */
  @Get(':token/cancel')
  async cancel(@Req() req: FastifyRequest, @Res() reply: FastifyReply, @Param('token') token: string) {
    await this.guarded(req, reply, { token }, async (open) => {
      redirect(reply, outcomeUrl(open.link, { status: 'error', error: 'cancelled' }));
    });
  }

  @Get(':token/:provider')
  async network(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('token') token: string,
    @Param('provider') provider: string,
  ) {
    await this.guarded(req, reply, { token }, async (open) => {
      const network = this.networkOf(open.link, provider);
      if (!network) return this.message(reply, 404, 'Not found', 'This link does not offer that network.', open);
      this.networkPage(req, reply, open, network, null, 200);
    });
  }

  /** Credentials: connects and returns to the platform. OAuth: sends the browser to the network's consent page. */
  @Post(':token/:provider')
  async connect(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('token') token: string,
    @Param('provider') provider: string,
  ) {
    await this.guarded(req, reply, { token }, async (open) => {
      const network = this.networkOf(open.link, provider);
      if (!network) return this.message(reply, 404, 'Not found', 'This link does not offer that network.', open);
      if (!this.csrf.verifyConnect(req, open.key, field(req, '_csrf'))) {
        return this.message(
          reply,
          403,
          'This form has expired',
          'Go back to the link, reload the page and try again.',
          open,
        );
      }
      if (network.connect === 'oauth') return this.startOAuth(req, reply, open, network);
      const body = (req.body ?? {}) as Record<string, string | string[]>;
      const credentials: Record<string, unknown> = {};
      for (const f of this.fields(network.id)) {
        const raw = body[`${CREDENTIAL_PREFIX}${f.name}`];
        const value = credentialValue(f, (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '');
        if (value !== undefined) credentials[f.name] = value;
      }
      try {
        const { channel } = await this.channels.connect(open.link.workspaceId, network.id as ProviderId, credentials);
        redirect(reply, outcomeUrl(open.link, { status: 'connected', channelId: channel.id }));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        // Mistyped credentials: the form again with the network's answer, so the person can correct them.
        this.networkPage(req, reply, open, network, `Could not connect ${network.name}: ${err.message}`, 400);
      }
    });
  }

  private async startOAuth(req: FastifyRequest, reply: FastifyReply, open: OpenLink, network: ProviderDto) {
    try {
      const start = await this.oauth.start(open.link.workspaceId, network.id, open.link.redirectUrl, {
        trustedRedirect: true, // the link's redirect URL, checked when the link was made
        connectLinkId: open.link.id,
      });
      // Should the authorization reach several accounts, the choice is made on this link's page.
      setCookie(req, reply, CONNECT_LINK_COOKIE, open.key, CHOOSE_COOKIE_MAX_AGE_S, CONNECT_PAGE_PATH);
      redirect(reply, start.authorizationUrl);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      redirect(reply, outcomeUrl(open.link, { status: 'error', error: 'provider_disabled' }));
    }
  }

  /**
   * Rate limit, then the link: unknown (404), revoked or expired (410) pages, else `action`. Errors
   * become a page without the URL in the log line (it holds the token).
   */
  private async guarded(
    req: FastifyRequest,
    reply: FastifyReply,
    by: { token: string } | { key: string },
    action: (open: OpenLink) => Promise<void>,
  ): Promise<void> {
    const token = 'token' in by ? by.token : null;
    const key = token !== null ? hashLinkToken(token) : (by as { key: string }).key;
    const wait = await this.limiter.take(req.ip, key);
    if (wait > 0) {
      void reply.header('retry-after', String(wait));
      return this.message(reply, 429, 'Too many requests', `Please wait ${wait} seconds and try again.`);
    }
    try {
      const link = token !== null ? await this.links.byToken(token) : await this.links.byTokenHash(key);
      if (!link) return this.message(reply, 404, 'Link not found', 'Check the address, or ask for a new link.');
      const status = connectLinkStatus(link);
      if (status !== 'active') {
        const what = status === 'revoked' ? 'was revoked' : 'has expired';
        return this.message(
          reply,
          410,
          'This link can no longer be used',
          `This connect link ${what}. Nothing was connected. Ask for a new link.`,
          { link, token, key },
        );
      }
      await action({ link, token, key });
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.logger.error({ msg: 'Connect page error', requestId: req.id, err: error.message, stack: error.stack });
      this.message(reply, 500, 'Something went wrong', `Please try again later (reference ${req.id}).`);
    }
  }

  private networkPage(
    req: FastifyRequest,
    reply: FastifyReply,
    open: OpenLink,
    network: ProviderDto,
    error: string | null,
    status: number,
  ): void {
    const csrf = this.csrf.connectTokenFor(req, reply, open.key);
    const fields = network.connect === 'credentials' ? this.fields(network.id) : null;
    this.send(
      reply,
      open,
      hostedNetworkPage({ link: open.link, token: open.token ?? '', csrf, network, fields, error }),
      status,
    );
  }

  private message(reply: FastifyReply, status: number, title: string, text: string, open?: OpenLink): void {
    this.send(reply, open ?? null, hostedMessagePage(title, text, open?.link.brandName ?? null), status);
  }

  /**
   * Sends a page with the hosted pages' headers. No script at all; forms post here, and a post may end
   * on the platform's redirect URL or (OAuth) on a network's consent page, which browsers hold to
   * `form-action` too.
   */
  private send(reply: FastifyReply, open: OpenLink | null, page: Html, status = 200): void {
    const formTargets = open ? this.formTargets(open.link) : [];
    void reply.headers({
      'content-security-policy':
        "default-src 'none'; style-src 'self'; img-src 'self' data:; " +
        `form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'cross-origin-opener-policy': 'same-origin',
    });
    sendPage(reply, page, status);
  }

  /** The origins a form of this link's pages may end on: its redirect URL and its networks' consent pages. */
  private formTargets(link: ConnectLink): string[] {
    const origins = new Set([new URL(link.redirectUrl).origin]);
    for (const id of link.providers) {
      const app = this.registry.has(id) ? this.oauthApps.find(id) : null;
      if (app) origins.add(new URL(app.spec.authorizeUrl(app.hosts)).origin);
    }
    return [...origins];
  }

  /** The link's networks this server can connect now, in the link's order. */
  private networksOf(link: ConnectLink): ProviderDto[] {
    const all = new Map(this.providers.list().map((n) => [n.id, n]));
    return link.providers.flatMap((id) => {
      const n = all.get(id);
      return n && n.enabled ? [n] : [];
    });
  }

  private networkOf(link: ConnectLink, provider: string): ProviderDto | null {
    return this.networksOf(link).find((n) => n.id === provider) ?? null;
  }

  private fields(id: string): CredentialField[] {
    let fields = this.forms.get(id);
    if (!fields) {
      fields = credentialFields(this.registry.plugin(id).credentials);
      this.forms.set(id, fields);
    }
    return fields;
  }
}

/** The link's redirect URL with the outcome: `connectLinkId`, `status`, and `channelId` or `error`. */
function outcomeUrl(link: ConnectLink, outcome: Record<string, string>): string {
  const url = new URL(link.redirectUrl);
  url.searchParams.set('connectLinkId', link.id);
  for (const [k, v] of Object.entries(outcome)) url.searchParams.set(k, v);
  return url.toString();
}
