import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, IsNull, Repository } from 'typeorm';
import { AppError } from '../common/errors';
import { cursorTimeSql, decodeTimeCursor, encodeTimeCursor, Page } from '../common/pagination/pagination';
import { isUuid } from '../common/validators';
import { runSql } from '../database/direct-query';
import { appConfig } from '../config';
import { ApiKeyCache } from './api-key.cache';
import { ApiKey } from './api-key.entity';
import { KeyEnvironment, displayPrefix, generateApiKey, hashApiKey } from './api-key.format';
import { Workspace } from './workspace.entity';

export interface CreateKeyInput {
  name: string;
  /** Default: the server's APP_ENVIRONMENT, else production. */
  environment?: KeyEnvironment;
  expiresAt?: Date | null;
  rateLimitPerMinute?: number | null;
  rateLimitBurst?: number | null;
}

interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  environment: KeyEnvironment | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rate_limit_per_minute: number | null;
  rate_limit_burst: number | null;
}

type ApiKeyPageRow = ApiKeyRow & { cursor_at: string };

function toApiKey(r: ApiKeyRow): ApiKey {
  return Object.assign(new ApiKey(), {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    prefix: r.prefix,
    environment: r.environment,
    keyHash: '',
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    rateLimitPerMinute: r.rate_limit_per_minute,
    rateLimitBurst: r.rate_limit_burst,
  });
}

/** Workspaces and their API keys: creation, listing and revocation (HTTP, CLI and bootstrap). */
@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    private readonly dataSource: DataSource,
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
    const apiKey = await this.keys.save(
      this.keys.create({
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
      }),
    );
    return { apiKey, key };
  }

  /**
   * Keyset page, newest first. Plain SQL on the pg connection on purpose (runSql): this is the hot read of
   * the auth benchmark, and the query builder and query runner cost about as much CPU as the query.
   */
  async list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKey>> {
    const params: unknown[] = [workspaceId, limit + 1];
    let after = '';
    if (cursor) {
      const { at, id } = decodeTimeCursor(cursor);
      params.push(at, id);
      after = 'AND (created_at, id) < ($3::timestamptz, $4::uuid)';
    }
    const rows = await runSql<ApiKeyPageRow>(
      this.dataSource,
      `SELECT id, workspace_id, name, prefix, environment, created_at, last_used_at, expires_at, revoked_at,
              rate_limit_per_minute, rate_limit_burst, ${cursorTimeSql('created_at')} AS cursor_at
         FROM api_keys WHERE workspace_id = $1 ${after}
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return { data: page.map(toApiKey), nextCursor: more && last ? encodeTimeCursor(last.cursor_at, last.id) : null };
  }

  async get(workspaceId: string, id: string): Promise<ApiKey> {
    const key = isUuid(id) ? await this.keys.findOne({ where: { id, workspaceId } }) : null;
    if (!key) throw AppError.notFound('API key');
    return key;
  }

  /** Revokes a key of the workspace (idempotent); effective on the next request on every instance. */
  async revoke(workspaceId: string | null, id: string): Promise<ApiKey> {
    const key = isUuid(id) ? await this.keys.findOne({ where: workspaceId ? { id, workspaceId } : { id } }) : null;
    if (!key) throw AppError.notFound('API key');
    if (!key.revokedAt) {
      await this.keys.update({ id: key.id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
      key.revokedAt = new Date();
    }
    await this.cache.invalidate(key.keyHash, key.id);
    return key;
  }

  /** Finds a workspace by id or name, creating it (by name) when asked to. */
  async resolveWorkspace(nameOrId: string, createIfMissing: boolean): Promise<Workspace> {
    const existing = await this.workspaces.findOne({
      where: isUuid(nameOrId) ? [{ id: nameOrId }, { name: nameOrId }] : { name: nameOrId },
    });
    if (existing) return existing;
    if (!createIfMissing) throw AppError.notFound('Workspace');
    await this.workspaces.createQueryBuilder().insert().values({ name: nameOrId }).orIgnore().execute();
    return this.workspaces.findOneOrFail({ where: { name: nameOrId } });
  }

  findWorkspaces(ids: string[]): Promise<Workspace[]> {
    return ids.length ? this.workspaces.find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  countWorkspaces(): Promise<number> {
    return this.workspaces.count();
  }
}
