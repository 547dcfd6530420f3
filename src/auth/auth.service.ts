import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import Redis from 'ioredis';
import { AppError } from '../common/errors';
import type { AuthContext, Credential } from './auth-context';
import { appConfig, rateLimitConfig } from '../config';
import { REDIS } from '../redis/redis.module';
import { ApiKeyCache } from './api-key.cache';
import type { ApiKey } from './api-key.entity';
import { ApiKeysStore } from './api-keys.store';
import {
  ACCESS_TOKEN_PREFIX,
  REFRESH_TOKEN_PREFIX,
  environmentOfKey,
  hashApiKey,
  isWellFormedApiKey,
  isWellFormedOAuthToken,
} from './api-key.format';
import { ACCESS_TOKENS, type AccessTokenResolver } from './access-tokens.port';
import { assertScope } from './scopes.format';
import { WorkspacesStore } from './workspaces.store';
import { isUuid } from '../common/validators';

const LAST_USED_EVERY_MS = 60_000;
/** The header that runs a request in another workspace of the key's organization (docs/adr/0052). */
export const WORKSPACE_HEADER = 'x-workspace-id';
/** The contract's exact message for a missing or empty key; integrators match on it. */
export const KEY_REQUIRED = 'API key required';
/**
 * The challenge every 401 of the API carries (RFC 9110 section 11.6.1): the two ways to send a key,
 * which is where the hint about them belongs rather than in the message.
 */
export const API_KEY_CHALLENGE = 'ApiKey realm="api", header="X-API-Key", Bearer realm="api"';

/** The refusal of an unknown (or revoked) API key; the contract fixes its wording. */
export const KEY_INVALID = 'Invalid API key';
/**
 * The refusals of an OAuth access token (docs/adr/0043), which name what was sent: an agent's developer
 * must tell an expired token (refresh it) from a revoked grant (authorize again) from a key problem.
 */
export const ACCESS_TOKEN_INVALID = 'Invalid or expired access token';
export const ACCESS_TOKEN_REVOKED = "This access token's grant was revoked";
export const REFRESH_TOKEN_SENT = 'A refresh token cannot authenticate a request; send the access token';

/** A 401 of the API, with its challenge. */
export function unauthorized(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, undefined, { 'WWW-Authenticate': API_KEY_CHALLENGE });
}

/** The 401 of a credential revoked since it was looked up (the revocation marker said so). */
export function revokedCredentialError(credential: Credential): AppError {
  return unauthorized(credential === 'access_token' ? ACCESS_TOKEN_REVOKED : KEY_INVALID);
}
const BEARER = /^Bearer[ \t]+(.*)$/i;

const first = (value: string | string[] | undefined): string =>
  ((Array.isArray(value) ? value[0] : value) ?? '').trim();

/**
 * The API key a request carries: the `X-API-Key` header, or the token of `Authorization: Bearer <key>`
 * (what many HTTP tools and MCP clients send). Both given must name the same key. An Authorization
 * header of another scheme is not ours (a proxy's, say) and is ignored. Empty when there is none.
 */
export function apiKeyOf(headers: IncomingHttpHeaders): string {
  const header = first(headers['x-api-key']);
  const bearer = BEARER.exec(first(headers.authorization))?.[1]?.trim() ?? '';
  if (header && bearer && header !== bearer) {
    throw unauthorized('X-API-Key and Authorization: Bearer name different keys; send one');
  }
  return header || bearer;
}

/** Turns the API key of a request (X-API-Key or Bearer) into the caller's workspace, or the contract's 401/429. */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly keys: ApiKeysStore,
    private readonly workspaces: WorkspacesStore,
    private readonly cache: ApiKeyCache,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(rateLimitConfig.KEY) private readonly limits: ConfigType<typeof rateLimitConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
    /** Absent where no OAuth authorization server runs (the CLI): access tokens are then unknown. */
    @Optional() @Inject(ACCESS_TOKENS) private readonly tokens?: AccessTokenResolver,
  ) {}

  /**
   * Authenticates the key of a request's headers (apiKeyOf), then moves it into the workspace named by
   * `X-Workspace-Id` when there is one (actIn).
   */
  async authenticateRequest(headers: IncomingHttpHeaders, clientIp: string): Promise<AuthContext> {
    const auth = await this.authenticate(apiKeyOf(headers), clientIp);
    const acting = first(headers[WORKSPACE_HEADER]);
    return headers[WORKSPACE_HEADER] === undefined ? auth : this.actIn(auth, acting);
  }

  /**
   * The principal acting in `workspaceId` (docs/adr/0052): a key holding `workspaces:manage` may act in
   * any live workspace of its organization, with its own scopes. 403 naming the scope without it; 404
   * for an unknown workspace, another organization's, or one being erased (read on every request: an
   * erasure stops acting in it at once, on every instance).
   */
  async actIn(auth: AuthContext, workspaceId: string): Promise<AuthContext> {
    assertScope(auth, 'workspaces:manage');
    if (workspaceId === auth.workspaceId) return auth;
    const target = isUuid(workspaceId)
      ? await this.workspaces.findInOrganization(auth.organizationId, workspaceId)
      : null;
    if (!target) throw AppError.notFound('Workspace');
    return { ...auth, workspaceId: target.id, keyWorkspaceId: auth.workspaceId };
  }

  async authenticate(header: string | string[] | undefined, clientIp: string): Promise<AuthContext> {
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || !key.trim()) throw unauthorized(KEY_REQUIRED);
    let found: AuthContext | 'revoked' | null = null;
    let refusal = KEY_INVALID;
    if (isWellFormedApiKey(key)) {
      if (this.acceptsTag(key)) found = await this.lookup(hashApiKey(key), 'api_key');
    } else if (key.startsWith(ACCESS_TOKEN_PREFIX)) {
      refusal = ACCESS_TOKEN_INVALID;
      if (this.tokens && isWellFormedOAuthToken(key, 'access'))
        found = await this.lookup(hashApiKey(key), 'access_token');
      if (found === 'revoked') refusal = ACCESS_TOKEN_REVOKED;
    } else if (key.startsWith(REFRESH_TOKEN_PREFIX)) {
      refusal = isWellFormedOAuthToken(key, 'refresh') ? REFRESH_TOKEN_SENT : ACCESS_TOKEN_INVALID;
    }
    if (!found || found === 'revoked') {
      await this.countFailure(clientIp);
      throw unauthorized(refusal);
    }
    return found;
  }

  /** A server with APP_ENVIRONMENT set refuses keys tagged for another environment (untagged keys pass). */
  private acceptsTag(key: string): boolean {
    const env = environmentOfKey(key);
    return !this.app.environment || env === null || env === this.app.environment;
  }

  /**
   * The principal of a key's (or an access token's) hash, through the cache. An access token stands for
   * its OAuth grant's key (docs/adr/0043): a miss asks the authorization server which key and until when,
   * then reads the key like any other; a hit costs what a key's does.
   */
  private async lookup(hash: string, credential: Credential): Promise<AuthContext | 'revoked' | null> {
    const now = Date.now();
    let entry = this.cache.get(hash);
    if (!entry) {
      let row: ApiKey | null;
      let expiresAt: number | null = null;
      let grantRevoked = false;
      let client: { id: string; name: string } | undefined;
      if (credential === 'access_token') {
        const token = await this.tokens!.resolveAccessToken(hash);
        row = token ? await this.keys.find(token.apiKeyId, null, 'oauth') : null;
        expiresAt = token?.expiresAt.getTime() ?? null;
        grantRevoked = token?.revoked ?? false;
        client = token?.client;
      } else {
        row = await this.keys.findByHash(hash);
      }
      const keyExpiry = row?.expiresAt?.getTime() ?? null;
      if (keyExpiry !== null && (expiresAt === null || keyExpiry < expiresAt)) expiresAt = keyExpiry;
      // A workspace being erased (docs/adr/0052) has its keys revoked; its row marks them too, at once.
      const revoked = grantRevoked || !!row?.revokedAt || !!row?.workspace?.deletedAt;
      const value =
        row && !revoked && (!this.app.environment || !row.environment || row.environment === this.app.environment)
          ? {
              workspaceId: row.workspaceId,
              organizationId: row.workspace!.organizationId,
              apiKeyId: row.id,
              rateLimitPerMinute: row.rateLimitPerMinute,
              rateLimitBurst: row.rateLimitBurst,
              scopes: Object.freeze([...row.scopes]),
              identity: client
                ? ({ kind: 'oauth_client', id: client.id, name: client.name } as const)
                : ({ kind: 'api_key', id: row.id, name: row.name } as const),
              expiresAt,
              lastUsedAt: row.lastUsedAt?.getTime() ?? null,
            }
          : null;
      this.cache.set(hash, value, revoked);
      entry = this.cache.get(hash)!;
    }
    const value = entry.value;
    if (!value) return entry.revoked ? 'revoked' : null;
    if (value.expiresAt !== null && value.expiresAt <= now) return null;
    if (value.lastUsedAt === null || now - value.lastUsedAt >= LAST_USED_EVERY_MS) {
      value.lastUsedAt = now;
      this.touch(value.apiKeyId);
    }
    return {
      workspaceId: value.workspaceId,
      organizationId: value.organizationId,
      apiKeyId: value.apiKeyId,
      rateLimitPerMinute: value.rateLimitPerMinute,
      rateLimitBurst: value.rateLimitBurst,
      scopes: value.scopes,
      credential,
      ...(value.identity ? { identity: value.identity } : {}),
    };
  }

  /** Writes lastUsedAt at most once a minute per key (the WHERE makes it so across instances too). */
  private touch(id: string): void {
    this.keys.touchLastUsed(id).catch((err: Error) => this.logger.warn(`Could not record lastUsedAt: ${err.message}`));
  }

  /** More than N failures from one address within a minute answer 429 until the minute is over. */
  private async countFailure(ip: string): Promise<void> {
    let count: number;
    try {
      const key = `authfail:${ip}`;
      const [[, n], [, ttl]] = (await this.redis.multi().incr(key).pttl(key).exec()) as [
        [null, number],
        [null, number],
      ];
      if (ttl < 0) await this.redis.pexpire(key, 60_000);
      count = n;
      if (count > this.limits.authFailuresPerMinute) {
        const retryAfter = Math.max(1, Math.ceil((ttl < 0 ? 60_000 : ttl) / 1000));
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          'Too many failed authentication attempts; try again later',
          undefined,
          {
            'Retry-After': retryAfter,
          },
        );
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      // Redis unavailable: fail open, the 401 still stands.
    }
  }
}
