import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { Page } from '../common/pagination/pagination';
import { isUuid } from '../common/validators';
import { appConfig } from '../config';
import type { ConnectLinkGate } from '../oauth/connect-link-gate.port';
import { ProvidersService } from '../providers/providers.service';
import { ConnectLink } from './connect-link.entity';
import { ConnectLinksStore } from './connect-links.store';
import { CONNECT_LINK_DEFAULT_SECONDS, CreateConnectLinkDto } from './dto/create-connect-link.dto';
import { connectLinkStatus } from './dto/connect-link.dto';

/** The path of the hosted page under PUBLIC_BASE_URL. */
export const CONNECT_PATH = '/connect';
const TOKEN_PREFIX = 'cl_';
/** What a token in a URL looks like (prefix + 43 base64url characters): anything else is not looked up. */
const TOKEN_FORMAT = /^cl_[A-Za-z0-9_-]{43}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Hosted connect links (docs/adr/0055): made, read, listed and revoked through the API in the acting
 * workspace; opened by token on the hosted page; asked by the OAuth callback (ConnectLinkGate)
 * whether an authorization started from a link may still connect.
 */
@Injectable()
export class ConnectLinksService implements ConnectLinkGate {
  constructor(
    private readonly store: ConnectLinksStore,
    private readonly providers: ProvidersService,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  /** Makes a link; the token (in `url`) is returned this once and only its hash is stored. */
  async create(workspaceId: string, input: CreateConnectLinkDto): Promise<{ link: ConnectLink; url: string }> {
    this.checkRedirectUrl(input.redirectUrl);
    const enabled = this.providers.list().filter((p) => p.enabled);
    let providers: string[];
    if (input.providers) {
      const off = input.providers.filter((id) => !enabled.some((p) => p.id === id));
      if (off.length > 0) {
        throw AppError.validation(`providers: ${off.join(', ')} not enabled on this server`, [
          { field: 'providers', message: `${off.join(', ')} not enabled on this server` },
        ]);
      }
      providers = [...input.providers];
    } else {
      providers = enabled.map((p) => p.id);
    }
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const link = await this.store.insert({
      workspaceId,
      tokenHash: hashLinkToken(token),
      redirectUrl: input.redirectUrl,
      providers,
      brandName: input.brandName?.trim() || null,
      expiresAt: new Date(Date.now() + (input.expiresInSeconds ?? CONNECT_LINK_DEFAULT_SECONDS) * 1000),
    });
    return { link, url: `${this.app.publicBaseUrl}${CONNECT_PATH}/${token}` };
  }

  async get(workspaceId: string, id: string): Promise<ConnectLink> {
    const link = isUuid(id) ? await this.store.find(workspaceId, id) : null;
    if (!link) throw AppError.notFound('Connect link');
    return link;
  }

  list(workspaceId: string, q: { limit: number; cursor?: string }): Promise<Page<ConnectLink>> {
    return this.store.page(workspaceId, q);
  }

  /** Revokes the link at once (its page answers 410 from now on); repeating it changes nothing. */
  async revoke(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    await this.store.revoke(workspaceId, id);
  }

  /** The link a page URL's token opens (whatever its status), or null when there is none. */
  async byToken(token: string): Promise<ConnectLink | null> {
    if (!TOKEN_FORMAT.test(token)) return null;
    return this.store.findByTokenHash(hashLinkToken(token));
  }

  /** The link whose token has this hash (as the hosted page's cookie carries it), or null. */
  async byTokenHash(tokenHash: string): Promise<ConnectLink | null> {
    if (!/^[0-9a-f]{64}$/.test(tokenHash)) return null;
    return this.store.findByTokenHash(tokenHash);
  }

  /** ConnectLinkGate: the link's redirect URL while it is active. */
  async usableRedirect(linkId: string): Promise<string | null> {
    const link = isUuid(linkId) ? await this.store.findById(linkId) : null;
    return link && connectLinkStatus(link) === 'active' ? link.redirectUrl : null;
  }

  /** `https`, or `http` to a loopback host outside production; no credentials, no fragment. */
  private checkRedirectUrl(value: string): void {
    const url = new URL(value); // IsHttpUrl checked it parses
    const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && !this.app.production;
    const problem =
      url.protocol !== 'https:' && !loopbackHttp
        ? this.app.production
          ? 'must be an https URL'
          : 'must be an https URL (or http to localhost, 127.0.0.1 or [::1])'
        : url.username || url.password
          ? 'must not carry a user name or password'
          : url.hash
            ? 'must not carry a fragment'
            : null;
    if (problem) throw AppError.validation(`redirectUrl ${problem}`, [{ field: 'redirectUrl', message: problem }]);
  }
}
