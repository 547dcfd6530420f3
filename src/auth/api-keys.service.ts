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
      lastUsedAt: null,
      revokedAt: null,
    });
    return { apiKey, key };
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
