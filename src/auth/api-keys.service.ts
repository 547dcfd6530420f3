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
import { Workspace } from './workspace.entity';
import { WorkspacesStore } from './workspaces.store';

export interface CreateKeyInput {
  name: string;
  /** Default: the server's APP_ENVIRONMENT, else production. */
  environment?: KeyEnvironment;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  rateLimitBurst?: number | null;
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
