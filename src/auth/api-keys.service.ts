import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { Page } from '../common/pagination/pagination';
import { isUuid } from '../common/validators';
import { appConfig } from '../config';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { ApiKeysStore } from './api-keys.store';
import { KeyEnvironment, displayPrefix, generateApiKey, hashApiKey } from './api-key.format';
import { ALL_SCOPES, normaliseScopes, scopesBeyond } from './scopes.format';
import { Workspace } from './workspace.entity';
import { WorkspacesStore } from './workspaces.store';

export interface CreateKeyInput {
  name: string;
  /** Default: the server's APP_ENVIRONMENT, else production. */
  environment?: KeyEnvironment;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  rateLimitBurst?: number | null;
  /** Default `["*"]` (every scope). */
  scopes?: readonly string[];
  /**
   * The scopes of whoever creates the key, when it is another key (POST /api-keys): the new key gets
   * none beyond them. Absent for the CLI, the console's owners and the bootstrap key, which hold them all.
   */
  creatorScopes?: readonly string[];
}

/** Workspaces and their API keys: creation, listing and revocation (HTTP, CLI and bootstrap). */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysStore,
    private readonly workspaces: WorkspacesStore,
    private readonly cache: ApiKeyCache,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  /** The environment new keys get when none is asked for. */
  get defaultEnvironment(): KeyEnvironment {
    return this.app.environment ?? 'production';
  }

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(workspaceId: string, input: CreateKeyInput): Promise<{ apiKey: ApiKey; key: string }> {
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw AppError.invalid([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    const scopes = normaliseScopes(input.scopes ?? [ALL_SCOPES]);
    if (scopes.length === 0) throw AppError.invalid([{ field: 'scopes', message: 'must name at least one scope' }]);
    const beyond = input.creatorScopes ? scopesBeyond(input.creatorScopes, scopes) : [];
    if (beyond.length) {
      throw new AppError('FORBIDDEN', `A key cannot create a key with scopes it does not hold: ${beyond.join(', ')}`);
    }
    const environment = input.environment ?? this.defaultEnvironment;
    const key = generateApiKey(environment);
    const apiKey = await this.keys.insert({
      workspaceId,
      name: input.name,
      prefix: displayPrefix(key),
      environment,
      keyHash: hashApiKey(key),
      expiresAt: input.expiresAt ?? null,
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
      rateLimitBurst: input.rateLimitBurst ?? null,
      scopes,
      kind: 'key',
      lastUsedAt: null,
      revokedAt: null,
    });
    return { apiKey, key };
  }

  /**
   * The key an OAuth grant stands on (docs/adr/0043): its scopes, rate-limit bucket, idempotency keys,
   * actor id and revocation are a key's. Its hash is of random bytes nobody is given, so only the
   * grant's access tokens reach it; key lists and the key routes do not show it.
   */
  async createGrantKey(workspaceId: string, input: { name: string; scopes: readonly string[] }): Promise<ApiKey> {
    const scopes = normaliseScopes(input.scopes);
    if (scopes.length === 0) throw AppError.invalid([{ field: 'scope', message: 'must name at least one scope' }]);
    return this.keys.insert({
      workspaceId,
      name: input.name.slice(0, 100),
      prefix: 'oauth',
      environment: this.defaultEnvironment,
      keyHash: randomBytes(32).toString('hex'),
      expiresAt: null,
      rateLimitPerMinute: null,
      rateLimitBurst: null,
      scopes,
      kind: 'oauth',
      lastUsedAt: null,
      revokedAt: null,
    });
  }

  /**
   * Revokes an OAuth grant's key (idempotent) and forgets the cached lookups of its access tokens (their
   * hashes) on every instance, as revoking a key forgets the key's: refused from the next request on.
   */
  async revokeGrantKey(id: string, accessTokenHashes: readonly string[]): Promise<void> {
    const key = await this.keys.find(id, null, 'oauth');
    if (!key) return;
    if (!key.revokedAt) await this.keys.revoke(key.id);
    for (const hash of [key.keyHash, ...accessTokenHashes]) await this.cache.invalidate(hash, key.id);
  }

  /** When each of these keys was last used (absent: never). */
  lastUsed(ids: string[]): Promise<Map<string, Date>> {
    return this.keys.lastUsed(ids);
  }

  /** Keyset page of the workspace's keys, newest first (never their hashes). */
  list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKey>> {
    return this.keys.page(workspaceId, limit, cursor);
  }

  async get(workspaceId: string, id: string): Promise<ApiKey> {
    const key = isUuid(id) ? await this.keys.find(id, workspaceId) : null;
    if (!key) throw AppError.notFound('API key');
    return key;
  }

  /** Revokes a key of the workspace (idempotent); effective on the next request on every instance. */
  async revoke(workspaceId: string | null, id: string): Promise<ApiKey> {
    const key = isUuid(id) ? await this.keys.find(id, workspaceId) : null;
    if (!key) throw AppError.notFound('API key');
    if (!key.revokedAt) {
      await this.keys.revoke(key.id);
      key.revokedAt = new Date();
    }
    await this.cache.invalidate(key.keyHash, key.id);
    return key;
  }

  /** Finds a workspace by id or name, creating it (by name) when asked to. */
  async resolveWorkspace(nameOrId: string, createIfMissing: boolean): Promise<Workspace> {
    const existing = await this.workspaces.findByNameOrId(nameOrId, isUuid(nameOrId));
    if (existing) return existing;
    if (!createIfMissing) throw AppError.notFound('Workspace');
    return this.workspaces.ensure(nameOrId);
  }

  findWorkspaces(ids: string[]): Promise<Workspace[]> {
    return this.workspaces.findByIds(ids);
  }

  countWorkspaces(): Promise<number> {
    return this.workspaces.count();
  }
}
