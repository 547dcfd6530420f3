import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import Redis from 'ioredis';
import type { AccessTokenResolver, ResolvedAccessToken } from '../auth/access-tokens.port';
import { generateOAuthToken, hashApiKey, isWellFormedOAuthToken } from '../auth/api-key.format';
import { ApiKeysService } from '../auth/api-keys.service';
import { SCOPES, type Scope, holdsScope, isScope } from '../auth/scopes.format';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { mcpOAuthConfig } from '../config';
import { REDIS } from '../redis/redis.module';
import type { OAuthClient } from './oauth-client.entity';
import type { OAuthGrant } from './oauth-grant.entity';
import {
  OAuthProtocolError,
  hasControlCharacter,
  isS256Challenge,
  redirectUriMatches,
  redirectUriProblem,
  verifiesChallenge,
  withParams,
} from './oauth-protocol';
import { OAuthServerStore } from './oauth-server.store';

/** Where the endpoints live, beside /api (docs/adr/0043). */
export const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  /** The consent page the authorization endpoint hands the browser to (the console's session lives under /console). */
  consent: '/console/oauth/authorize',
} as const;

/** The address the request came to (X-Forwarded-* from trusted proxies, see TRUST_PROXY): the issuer. */
export function baseUrlOf(req: { protocol: string; host: string }): string {
  return `${req.protocol}://${req.host}`;
}

/** The resource the tokens are for (RFC 8707): the MCP server of this service. */
export function mcpResourceOf(baseUrl: string): string {
  return `${baseUrl}/mcp`;
}

const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 100;
const MAX_STATE = 1000;
type Params = Record<string, unknown>;

const str = (params: Params, name: string): string => {
  const v = params[name];
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
};

/** An authorization request that passed every check: what the consent page shows and posts back. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  resource: string;
  /** The known scopes the client asked for (unknown ones are ignored, RFC 6749 section 3.3). */
  requestedScopes: Scope[];
}

/**
 * An authorization request that cannot go on and must not be sent back to the client (unknown client,
 * redirect URI not registered): the consent page shows it to the person instead.
 */
export class UnsafeAuthorizationRequest extends AppError {}

/** An authorization request refused in a way the client is told of, at its redirect URI. */
export class AuthorizationRefused extends Error {
  constructor(readonly redirectTo: string) {
    super('authorization refused');
  }
}

/** One agent a workspace authorized, as the console lists it. */
export interface AuthorizedAgent {
  id: string;
  clientName: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * The OAuth 2.1 authorization server of remote MCP agents (docs/adr/0043): metadata (RFC 8414),
 * dynamic registration of public clients (RFC 7591), the authorization code with PKCE S256 through
 * the console's consent page, the token endpoint with rotating refresh tokens, and revocation
 * (RFC 7009). A grant stands on an API key of kind `oauth` (ApiKeysService.createGrantKey): its
 * access tokens authenticate on the key lookup path, with the key's scopes and rate limit.
 */
@Injectable()
export class OAuthServerService implements AccessTokenResolver {
  private readonly logger = new Logger('OAuthServer');

  constructor(
    private readonly store: OAuthServerStore,
    private readonly keys: ApiKeysService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(mcpOAuthConfig.KEY) private readonly config: ConfigType<typeof mcpOAuthConfig>,
  ) {}

  /** Authorization server metadata (RFC 8414) for the service at `baseUrl`. */
  metadata(baseUrl: string): Record<string, unknown> {
    return {
      issuer: baseUrl,
      authorization_endpoint: `${baseUrl}${OAUTH_PATHS.authorize}`,
      token_endpoint: `${baseUrl}${OAUTH_PATHS.token}`,
      registration_endpoint: `${baseUrl}${OAUTH_PATHS.register}`,
      revocation_endpoint: `${baseUrl}${OAUTH_PATHS.revoke}`,
      scopes_supported: SCOPES,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${baseUrl}/api/docs`,
    };
  }

  /** Dynamic client registration (RFC 7591) of a public client; at most N per address and hour. */
  async register(body: unknown, clientIp: string): Promise<Record<string, unknown>> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new OAuthProtocolError('invalid_client_metadata', 'Send the client metadata as a JSON object');
    }
    const meta = body as Params;
    const uris = meta.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0) {
      throw new OAuthProtocolError('invalid_redirect_uri', 'redirect_uris: give at least one redirect URI');
    }
    if (uris.length > MAX_REDIRECT_URIS) {
      throw new OAuthProtocolError('invalid_redirect_uri', `redirect_uris: at most ${MAX_REDIRECT_URIS}`);
    }
    uris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthProtocolError('invalid_redirect_uri', `redirect_uris[${i}] ${problem}`);
    });
    const method = meta.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') {
      throw new OAuthProtocolError(
        'invalid_client_metadata',
        'token_endpoint_auth_method: only "none" (a public client using PKCE) is supported',
      );
    }
    const grantTypes = meta.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grantTypes) || !grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')) {
      throw new OAuthProtocolError('invalid_client_metadata', 'grant_types: authorization_code and refresh_token only');
    }
    const responseTypes = meta.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === 'code')) {
      throw new OAuthProtocolError('invalid_client_metadata', 'response_types: code only');
    }
    const text = (name: string, max: number): string | null => {
      const v = meta[name];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string' || v.length > max) {
        throw new OAuthProtocolError('invalid_client_metadata', `${name}: a string of at most ${max} characters`);
      }
      // Shown on the consent page and in the console, and echoed: text only.
      if (hasControlCharacter(v)) {
        throw new OAuthProtocolError('invalid_client_metadata', `${name}: must not contain control characters`);
      }
      return v.trim() || null;
    };
    const name = text('client_name', MAX_NAME) ?? 'Unnamed agent';
    const clientUri = text('client_uri', 2000);
    const software = [text('software_id', 100), text('software_version', 50)].filter(Boolean).join(' ') || null;
    await this.countRegistration(clientIp);
    const client = await this.store.insertClient({ name, redirectUris: uris as string[], clientUri, software });
    this.logger.log({ msg: 'oauth client registered', clientId: client.id, name });
    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      grant_types: grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(clientUri ? { client_uri: clientUri } : {}),
    };
  }

  private async countRegistration(ip: string): Promise<void> {
    let count: number;
    try {
      const key = `oauth:register:${ip}`;
      count = await this.redis.incr(key);
      if (count === 1) await this.redis.pexpire(key, 3_600_000);
    } catch {
      return; // Redis unavailable: registration stays open, as the API's failure counting does.
    }
    if (count > this.config.registrationsPerHour) {
      throw new OAuthProtocolError('too_many_requests', 'Too many client registrations from this address', 429);
    }
  }

  /**
   * Checks an authorization request (GET /oauth/authorize, then the consent page). An unknown client or
   * unregistered redirect URI throws UnsafeAuthorizationRequest (shown, never redirected); anything else
   * wrong throws AuthorizationRefused with the error at the client's redirect URI.
   */
  async checkAuthorization(params: Params, baseUrl: string): Promise<AuthorizationRequest> {
    const clientId = str(params, 'client_id');
    const client = isUuid(clientId) ? await this.store.findClient(clientId) : null;
    if (!client)
      throw new UnsafeAuthorizationRequest('NOT_FOUND', 'This agent is not registered here (unknown client_id).');
    const given = str(params, 'redirect_uri');
    let redirectUri: string;
    if (given) {
      if (!client.redirectUris.some((r) => redirectUriMatches(r, given))) {
        throw new UnsafeAuthorizationRequest('VALIDATION_ERROR', 'The redirect_uri is not one this agent registered.');
      }
      redirectUri = given;
    } else if (client.redirectUris.length === 1) {
      redirectUri = client.redirectUris[0];
    } else {
      throw new UnsafeAuthorizationRequest('VALIDATION_ERROR', 'The request names no redirect_uri.');
    }
    const state = str(params, 'state');
    const refuse = (error: string, description: string): never => {
      throw new AuthorizationRefused(
        withParams(redirectUri, {
          error,
          error_description: description,
          state: state || undefined,
          iss: baseUrl,
        }),
      );
    };
    if (state.length > MAX_STATE) refuse('invalid_request', `state: at most ${MAX_STATE} characters`);
    if (str(params, 'response_type') !== 'code') refuse('unsupported_response_type', 'response_type must be code');
    const challenge = str(params, 'code_challenge');
    if (!challenge) refuse('invalid_request', 'code_challenge is required (PKCE)');
    if (str(params, 'code_challenge_method') !== 'S256') {
      refuse('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
    }
    if (!isS256Challenge(challenge))
      refuse('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
    const resource = mcpResourceOf(baseUrl);
    const asked = str(params, 'resource');
    if (asked && asked.replace(/\/+$/, '') !== resource) {
      refuse('invalid_target', `resource must be ${resource}`);
    }
    const requestedScopes = str(params, 'scope')
      .split(' ')
      .filter((s): s is Scope => isScope(s));
    return { client, redirectUri, state, codeChallenge: challenge, resource, requestedScopes };
  }

  /** The person said no: the client hears `access_denied`. */
  denial(request: AuthorizationRequest, baseUrl: string): string {
    return withParams(request.redirectUri, {
      error: 'access_denied',
      error_description: 'The user denied the authorization',
      state: request.state || undefined,
      iss: baseUrl,
    });
  }

  /**
   * The person approved: a single-use code for the chosen workspace and scopes (already checked against
   * what the person may do there), and the URL that hands it to the client.
   */
  async approve(
    request: AuthorizationRequest,
    grant: { userId: string; workspaceId: string; scopes: readonly string[]; held: readonly string[] },
    baseUrl: string,
  ): Promise<string> {
    const scopes = SCOPES.filter((s) => grant.scopes.includes(s));
    if (scopes.length === 0) throw AppError.validation('Tick at least one permission to grant.');
    const beyond = scopes.filter((s) => !holdsScope(grant.held, s));
    if (beyond.length) {
      throw new AppError('FORBIDDEN', `You cannot grant what you may not do in this workspace: ${beyond.join(', ')}`);
    }
    const code = randomBytes(32).toString('base64url');
    await this.store.insertCode({
      codeHash: sha256(code),
      clientId: request.client.id,
      workspaceId: grant.workspaceId,
      userId: grant.userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes,
      resource: request.resource,
      expiresAt: new Date(Date.now() + this.config.codeTtlMs),
    });
    return withParams(request.redirectUri, { code, state: request.state || undefined, iss: baseUrl });
  }

  /** The token endpoint (POST /oauth/token): authorization_code or refresh_token. */
  async token(params: Params, baseUrl: string): Promise<TokenResponse> {
    const type = str(params, 'grant_type');
    if (type === 'authorization_code') return this.exchangeCode(params, baseUrl);
    if (type === 'refresh_token') return this.refresh(params);
    throw new OAuthProtocolError(
      'unsupported_grant_type',
      type ? `grant_type ${type} is not supported` : 'grant_type is required',
    );
  }

  private async exchangeCode(params: Params, baseUrl: string): Promise<TokenResponse> {
    const invalid = (why: string) => new OAuthProtocolError('invalid_grant', why);
    const code = str(params, 'code');
    const verifier = str(params, 'code_verifier');
    if (!code) throw new OAuthProtocolError('invalid_request', 'code is required');
    if (!verifier) throw new OAuthProtocolError('invalid_request', 'code_verifier is required (PKCE)');
    const hash = sha256(code);
    const row = await this.store.findCode(hash);
    if (!row) throw invalid('The authorization code is unknown');
    if (!(await this.store.useCode(hash))) {
      // A code used twice: whoever holds it may not be the client, so what it gave is withdrawn.
      if (row.grantId) await this.revokeGrantById(row.grantId, 'authorization code replayed');
      throw invalid('The authorization code was already used');
    }
    if (row.expiresAt.getTime() <= Date.now()) throw invalid('The authorization code has expired');
    const clientId = str(params, 'client_id');
    if (clientId && clientId !== row.clientId) throw invalid('The authorization code was issued to another client');
    if (str(params, 'redirect_uri') !== row.redirectUri) {
      throw invalid('redirect_uri does not match the one of the authorization request');
    }
    if (!verifiesChallenge(verifier, row.codeChallenge))
      throw invalid('code_verifier does not match the code_challenge');
    const resource = str(params, 'resource');
    if (resource && resource.replace(/\/+$/, '') !== mcpResourceOf(baseUrl)) {
      throw new OAuthProtocolError('invalid_target', `resource must be ${mcpResourceOf(baseUrl)}`);
    }
    const client = await this.store.findClient(row.clientId);
    if (!client) throw invalid('The client is no longer registered');
    const key = await this.keys.createGrantKey(row.workspaceId, { name: `${client.name} (OAuth)`, scopes: row.scopes });
    const grant = await this.store.insertGrant({
      clientId: client.id,
      workspaceId: row.workspaceId,
      userId: row.userId,
      apiKeyId: key.id,
      scopes: key.scopes,
      resource: row.resource,
    });
    await this.store.setCodeGrant(hash, grant.id);
    this.logger.log({
      msg: 'oauth grant made',
      grantId: grant.id,
      clientId: client.id,
      workspaceId: grant.workspaceId,
    });
    return this.issue(grant);
  }

  private async refresh(params: Params): Promise<TokenResponse> {
    const invalid = (why: string) => new OAuthProtocolError('invalid_grant', why);
    const presented = str(params, 'refresh_token');
    if (!presented) throw new OAuthProtocolError('invalid_request', 'refresh_token is required');
    if (!isWellFormedOAuthToken(presented, 'refresh')) throw invalid('The refresh token is unknown');
    const hash = hashApiKey(presented);
    const token = await this.store.findToken(hash);
    if (!token || token.kind !== 'refresh') throw invalid('The refresh token is unknown');
    const grant = await this.store.findGrant(token.grantId);
    if (!grant || grant.revokedAt) throw invalid('The authorization was revoked');
    const clientId = str(params, 'client_id');
    if (clientId && clientId !== grant.clientId) throw invalid('The refresh token was issued to another client');
    const scope = str(params, 'scope');
    if (scope && scope.split(' ').some((s) => s && !grant.scopes.includes(s))) {
      throw new OAuthProtocolError('invalid_scope', 'A refresh cannot add scopes to what was granted');
    }
    if (token.usedAt || !(await this.store.useRefreshToken(hash))) {
      // A rotated refresh token came back: one of two holders is not the client, so the family ends.
      await this.revokeGrant(grant, 'rotated refresh token reused');
      throw invalid('The refresh token was already used; the authorization is revoked');
    }
    if (token.expiresAt.getTime() <= Date.now()) throw invalid('The refresh token has expired');
    return this.issue(grant);
  }

  private async issue(grant: OAuthGrant): Promise<TokenResponse> {
    const access = generateOAuthToken('access');
    const refresh = generateOAuthToken('refresh');
    const now = Date.now();
    await this.store.insertTokens([
      {
        tokenHash: hashApiKey(access),
        grantId: grant.id,
        kind: 'access',
        expiresAt: new Date(now + this.config.accessTokenTtlMs),
      },
      {
        tokenHash: hashApiKey(refresh),
        grantId: grant.id,
        kind: 'refresh',
        expiresAt: new Date(now + this.config.refreshTokenTtlMs),
      },
    ]);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(this.config.accessTokenTtlMs / 1000),
      refresh_token: refresh,
      scope: grant.scopes.join(' '),
    };
  }

  /**
   * Token revocation (RFC 7009): an access or refresh token ends its whole grant (the agent signs out).
   * Unknown tokens, and tokens of another client, change nothing; the answer is the same.
   */
  async revokeToken(params: Params): Promise<void> {
    const presented = str(params, 'token');
    if (!presented) throw new OAuthProtocolError('invalid_request', 'token is required');
    if (!isWellFormedOAuthToken(presented, 'access') && !isWellFormedOAuthToken(presented, 'refresh')) return;
    const token = await this.store.findToken(hashApiKey(presented));
    if (!token) return;
    const grant = await this.store.findGrant(token.grantId);
    const clientId = str(params, 'client_id');
    if (!grant || (clientId && clientId !== grant.clientId)) return;
    await this.revokeGrant(grant, 'revoked by the client');
  }

  /** The agents a workspace authorized and has not revoked, newest first. */
  async listAgents(workspaceId: string, limit = 100): Promise<AuthorizedAgent[]> {
    const grants = await this.store.liveGrants(workspaceId, limit);
    const used = await this.keys.lastUsed(grants.map((g) => g.apiKeyId));
    return grants.map((g) => ({
      id: g.id,
      clientName: g.clientName,
      scopes: g.scopes,
      createdAt: g.createdAt,
      lastUsedAt: used.get(g.apiKeyId) ?? null,
    }));
  }

  async getAgent(workspaceId: string, id: string): Promise<AuthorizedAgent> {
    const agent = (await this.listAgents(workspaceId, 1000)).find((a) => a.id === id);
    if (!agent) throw AppError.notFound('Authorized agent');
    return agent;
  }

  /** Revokes an agent of the workspace (the console's button): its tokens are refused from the next call on. */
  async revokeAgent(workspaceId: string, id: string): Promise<void> {
    const grant = isUuid(id) ? await this.store.findGrant(id, workspaceId) : null;
    if (!grant) throw AppError.notFound('Authorized agent');
    await this.revokeGrant(grant, 'revoked in the console');
  }

  private async revokeGrantById(id: string, why: string): Promise<void> {
    const grant = await this.store.findGrant(id);
    if (grant) await this.revokeGrant(grant, why);
  }

  private async revokeGrant(grant: OAuthGrant, why: string): Promise<void> {
    await this.store.revokeGrant(grant.id);
    // The key, and the cache entries of its live access tokens on every instance: refused from the next request on.
    await this.keys.revokeGrantKey(grant.apiKeyId, await this.store.liveAccessTokenHashes(grant.id));
    this.logger.log({ msg: 'oauth grant revoked', grantId: grant.id, workspaceId: grant.workspaceId, why });
  }

  /** The key lookup's question (auth's ACCESS_TOKENS port). */
  resolveAccessToken(tokenHash: string): Promise<ResolvedAccessToken | null> {
    return this.store.resolveAccessToken(tokenHash);
  }

  /** Deletes expired codes and tokens (OAuthServerPurgeJob); `stop` ends it between batches. */
  purgeExpired(batchSize: number, stop: () => boolean = () => false): Promise<OAuthServerPurgeStats> {
    return this.store.deleteExpired(batchSize, stop);
  }
}

/** What a purge deleted. */
export interface OAuthServerPurgeStats {
  codes: number;
  tokens: number;
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
