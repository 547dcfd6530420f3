import { Injectable } from '@nestjs/common';
import { OutboundHttp, parseJsonBody } from '../common/http/outbound-http';
import { TransientProviderError } from '../providers/provider.errors';
import type { OAuthHookContext, OAuthTokenCall, OAuthTokens } from '../providers/social-provider.interface';
import type { OAuthApp } from './oauth-apps.service';

/** Tokens from a network's token endpoint. */
export type TokenSet = OAuthTokens;

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
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function retryAfter(value: string | string[] | undefined): number | undefined {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : undefined;
}

/**
 * The error of a refused token request: RFC 6749's `error` / `error_description`, or an error object
 * (`{error: {message, type, code}}`, as Graph-style APIs answer).
 */
function refusal(data: Record<string, unknown>, status: number): { error: string; description?: string } {
  const nested = obj(data.error);
  if (nested) {
    const code = nested.code;
    const type = str(nested.type);
    return {
      error: type ?? (typeof code === 'number' || typeof code === 'string' ? `code_${code}` : `http_${status}`),
      description: str(nested.message),
    };
  }
  return {
    error: str(data.error) ?? str(data.error_type) ?? `http_${status}`,
    description: str(data.error_description) ?? str(data.error_message),
  };
}

/**
 * A token answer's fields: at the top level (RFC 6749), or in the first element of `data` (the
 * Instagram API with Instagram Login wraps its code exchange answer so).
 */
function tokenFields(data: Record<string, unknown>): Record<string, unknown> {
  if (str(data.access_token)) return data;
  const first = Array.isArray(data.data) ? obj(data.data[0]) : undefined;
  return first && str(first.access_token) ? first : data;
}

/**
 * Token requests: RFC 6749 (code exchange with the PKCE verifier, refresh) and the calls plugins'
 * hooks make (long-lived token exchange, refresh of the access token itself). Never logs tokens.
 */
@Injectable()
export class OAuthTokenClient {
  constructor(private readonly http: OutboundHttp) {}

  async exchangeCode(app: OAuthApp, code: string, codeVerifier: string): Promise<TokenSet> {
    const tokens = await this.request(
      app,
      app.spec.tokenEndpointMethod ?? 'POST',
      app.spec.tokenUrl(app.hosts),
      this.withClient(app, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.callbackUrl,
        code_verifier: codeVerifier,
      }),
      true,
    );
    return app.spec.afterCodeExchange ? app.spec.afterCodeExchange(tokens, this.context(app)) : tokens;
  }

  /**
   * Refreshes: the plugin's own refresh when it declares one (networks that refresh the access token
   * itself), else the refresh-token grant with `refreshToken`.
   */
  refresh(app: OAuthApp, current: { accessToken: string; refreshToken: string | null }): Promise<TokenSet> {
    if (app.spec.refresh) return app.spec.refresh(current, this.context(app));
    if (!current.refreshToken) {
      return Promise.reject(new OAuthGrantRefusedError('no_refresh_token', 'No refresh token was issued'));
    }
    return this.request(
      app,
      'POST',
      app.spec.tokenUrl(app.hosts),
      this.withClient(app, { grant_type: 'refresh_token', refresh_token: current.refreshToken }),
      true,
    );
  }

  /** What a plugin's hook gets: the app registration and token calls read like the standard endpoint's. */
  private context(app: OAuthApp): OAuthHookContext {
    return {
      hosts: app.hosts,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      callbackUrl: app.callbackUrl,
      token: (call: OAuthTokenCall) =>
        this.request(app, call.method, call.url, new URLSearchParams(call.fields), false),
    };
  }

  /** The form with the client's credentials: form fields, or HTTP Basic (then the header carries the secret). */
  private withClient(app: OAuthApp, fields: Record<string, string>): URLSearchParams {
    const form = new URLSearchParams(fields);
    form.set(app.spec.clientIdParameter ?? 'client_id', app.clientId);
    if (app.spec.clientAuthentication === 'body') form.set('client_secret', app.clientSecret);
    return form;
  }

  private async request(
    app: OAuthApp,
    method: 'GET' | 'POST',
    endpoint: string,
    form: URLSearchParams,
    basicAuth: boolean,
  ): Promise<TokenSet> {
    const name = app.plugin.displayName;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (basicAuth && app.spec.clientAuthentication === 'basic') {
      const basic = `${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    let url = endpoint;
    let body: string | undefined;
    if (method === 'GET') {
      const u = new URL(endpoint);
      for (const [k, v] of form) u.searchParams.set(k, v);
      url = u.toString();
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = form.toString();
    }
    let res;
    try {
      res = await this.http.request({ method, url, headers, body, maxResponseBytes: 64 * 1024 });
    } catch (err) {
      throw new TransientProviderError(`${name} token endpoint could not be reached: ${(err as Error).message}`);
    }
    const data = obj(parseJsonBody(res.body)) ?? {};
    if (
      res.status === 429 ||
      res.status >= 500 ||
      (res.status !== 200 && app.spec.transientTokenError?.(res.status, data))
    ) {
      throw new TransientProviderError(
        `${name} token endpoint is unavailable (HTTP ${res.status})`,
        res.status === 429 ? 429 : res.status,
        retryAfter(res.headers['retry-after']),
      );
    }
    if (res.status !== 200) {
      const { error, description } = refusal(data, res.status);
      throw new OAuthGrantRefusedError(
        error,
        `${name} refused the grant: ${error}${description ? ` (${description})` : ''}`,
      );
    }
    const fields = tokenFields(data);
    const accessToken = str(fields.access_token);
    if (!accessToken) throw new TransientProviderError(`${name} token endpoint answered without an access_token`);
    const expiresIn = typeof fields.expires_in === 'number' ? fields.expires_in : undefined;
    const permissions = Array.isArray(fields.permissions)
      ? fields.permissions.filter((p) => typeof p === 'string')
      : [];
    const scope =
      str(fields.scope) ?? str(fields.permissions) ?? (permissions.length ? permissions.join(',') : undefined);
    return {
      accessToken,
      refreshToken: str(fields.refresh_token) ?? null,
      expiresAt: expiresIn !== undefined ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      scope: scope ?? null,
    };
  }
}
