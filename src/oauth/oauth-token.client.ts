import { Injectable } from '@nestjs/common';
import { OutboundHttp, parseJsonBody } from '../common/http/outbound-http';
import { TransientProviderError } from '../providers/provider.errors';
import type { OAuthApp } from './oauth-apps.service';

/** Tokens from a network's token endpoint. */
export interface TokenSet {
  accessToken: string;
  /** Null when the network issued none (then the channel must be reconnected at expiry). */
  refreshToken: string | null;
  /** ISO date the access token expires; null when the network did not say. */
  expiresAt: string | null;
  scope: string | null;
}

/** The token endpoint refused the grant (`invalid_grant`, `invalid_client`, ...): retrying will not help. */
export class OAuthGrantRefusedError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthGrantRefusedError';
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function retryAfter(value: string | string[] | undefined): number | undefined {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : undefined;
}

/** RFC 6749 token requests (code exchange with the PKCE verifier, refresh). Never logs tokens. */
@Injectable()
export class OAuthTokenClient {
  constructor(private readonly http: OutboundHttp) {}

  exchangeCode(app: OAuthApp, code: string, codeVerifier: string): Promise<TokenSet> {
    return this.request(app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.callbackUrl,
      code_verifier: codeVerifier,
    });
  }

  refresh(app: OAuthApp, refreshToken: string): Promise<TokenSet> {
    return this.request(app, { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  private async request(app: OAuthApp, fields: Record<string, string>): Promise<TokenSet> {
    const name = app.plugin.displayName;
    const form = new URLSearchParams(fields);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (app.spec.clientAuthentication === 'basic') {
      const basic = `${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
      form.set('client_id', app.clientId);
    } else {
      form.set('client_id', app.clientId);
      form.set('client_secret', app.clientSecret);
    }
    let res;
    try {
      res = await this.http.request({
        method: 'POST',
        url: app.spec.tokenUrl(app.hosts),
        headers,
        body: form.toString(),
        maxResponseBytes: 64 * 1024,
      });
    } catch (err) {
      throw new TransientProviderError(`${name} token endpoint could not be reached: ${(err as Error).message}`);
    }
    const parsed = parseJsonBody(res.body);
    const data =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    if (res.status === 429 || res.status >= 500) {
      throw new TransientProviderError(
        `${name} token endpoint is unavailable (HTTP ${res.status})`,
        res.status,
        retryAfter(res.headers['retry-after']),
      );
    }
    if (res.status !== 200) {
      const error = str(data.error) ?? `http_${res.status}`;
      const description = str(data.error_description);
      throw new OAuthGrantRefusedError(
        error,
        `${name} refused the grant: ${error}${description ? ` (${description})` : ''}`,
      );
    }
    const accessToken = str(data.access_token);
    if (!accessToken) throw new TransientProviderError(`${name} token endpoint answered without an access_token`);
    const expiresIn = typeof data.expires_in === 'number' ? data.expires_in : undefined;
    return {
      accessToken,
      refreshToken: str(data.refresh_token) ?? null,
      expiresAt: expiresIn !== undefined ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      scope: str(data.scope) ?? null,
    };
  }
}
