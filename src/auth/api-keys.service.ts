import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { AppError } from '../common/errors';
import { paginate, Page } from '../common/pagination/pagination';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.format';
import { Workspace } from './workspace.entity';

export interface CreateKeyInput {
  name: string;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  rateLimitBurst?: number | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Workspaces and their API keys: creation, listing and revocation (HTTP, CLI and bootstrap). */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    private readonly cache: ApiKeyCache,
  ) {}

  /** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
  async create(workspaceId: string, input: CreateKeyInput): Promise<{ apiKey: ApiKey; key: string }> {
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw AppError.validation('expiresAt: must be in the future', [
        { field: 'expiresAt', message: 'must be in the future' },
      ]);
    }
    const key = generateApiKey();
    const apiKey = await this.keys.save(
      this.keys.create({
        workspaceId,
        name: input.name,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key),
        expiresAt: input.expiresAt ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        rateLimitBurst: input.rateLimitBurst ?? null,
        lastUsedAt: null,
        revokedAt: null,
      }),
    );
    return { apiKey, key };
  }

  list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKey>> {
    const qb = this.keys.createQueryBuilder('k').where('k.workspace_id = :workspaceId', { workspaceId });
    return paginate(qb, {
      sortColumn: 'k.created_at',
      idColumn: 'k.id',
      direction: 'DESC',
      limit,
      cursor,
      cursorOf: (k) => [k.createdAt.toISOString(), k.id],
    });
  }

  async get(workspaceId: string, id: string): Promise<ApiKey> {
    const key = UUID.test(id) ? await this.keys.findOne({ where: { id, workspaceId } }) : null;
    if (!key) throw AppError.notFound('API key');
    return key;
  }

  /** Revokes a key of the workspace (idempotent); effective on the next request on every instance. */
  async revoke(workspaceId: string | null, id: string): Promise<ApiKey> {
    const key = UUID.test(id) ? await this.keys.findOne({ where: workspaceId ? { id, workspaceId } : { id } }) : null;
    if (!key) throw AppError.notFound('API key');
    if (!key.revokedAt) {
      await this.keys.update({ id: key.id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
      key.revokedAt = new Date();
    }
    await this.cache.invalidate(key.keyHash);
    return key;
  }

  /** Finds a workspace by id or name, creating it (by name) when asked to. */
  async resolveWorkspace(nameOrId: string, createIfMissing: boolean): Promise<Workspace> {
    const existing = await this.workspaces.findOne({
      where: UUID.test(nameOrId) ? [{ id: nameOrId }, { name: nameOrId }] : { name: nameOrId },
    });
    if (existing) return existing;
    if (!createIfMissing) throw AppError.notFound('Workspace');
    await this.workspaces.createQueryBuilder().insert().values({ name: nameOrId }).orIgnore().execute();
    return this.workspaces.findOneOrFail({ where: { name: nameOrId } });
  }

  countWorkspaces(): Promise<number> {
    return this.workspaces.count();
  }
}
