import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, Repository } from 'typeorm';
import { decodeTimeCursor, encodeTimeCursor, Page } from '../common/pagination/pagination';
import { cursorTimeSql } from '../database/keyset-pagination';
import { runSql } from '../database/direct-query';
import { ApiKey, ApiKeyKind } from './api-key.entity';

type Row = Record<string, unknown>;

/** Every column of a listed key but its hash (raw SQL; checked against the entity by test/database/row-mappings). */
export const LISTED_KEY_COLUMNS =
  'id, workspace_id, name, prefix, environment, created_at, last_used_at, expires_at, revoked_at, ' +
  'rate_limit_per_minute, rate_limit_burst, scopes, kind';
export function toListedKey(r: Row): Omit<ApiKey, 'keyHash' | 'workspace'> {
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    name: r.name as string,
    prefix: r.prefix as string,
    environment: r.environment as ApiKey['environment'],
    createdAt: r.created_at as Date,
    lastUsedAt: r.last_used_at as Date | null,
    expiresAt: r.expires_at as Date | null,
    revokedAt: r.revoked_at as Date | null,
    rateLimitPerMinute: r.rate_limit_per_minute as number | null,
    rateLimitBurst: r.rate_limit_burst as number | null,
    scopes: r.scopes as string[],
    kind: r.kind as ApiKey['kind'],
  };
}

/** The `api_keys` table (owned by auth). */
@Injectable()
export class ApiKeysStore {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    private readonly dataSource: DataSource,
  ) {}

  insert(key: Omit<ApiKey, 'id' | 'createdAt' | 'workspace'>): Promise<ApiKey> {
    return this.keys.save(this.keys.create(key));
  }

  /**
   * Keyset page, newest first, without the hashes. Plain SQL on the pg connection on purpose (runSql): this
   * is the hot read of the auth benchmark, and the query builder and query runner cost about as much CPU as
   * the query.
   */
  async page(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKey>> {
    const params: unknown[] = [workspaceId, limit + 1];
    let after = '';
    if (cursor) {
      const { at, id } = decodeTimeCursor(cursor);
      params.push(at, id);
      after = 'AND (created_at, id) < ($3::timestamptz, $4::uuid)';
    }
    const rows = await runSql<Row>(
      this.dataSource,
      `SELECT ${LISTED_KEY_COLUMNS}, ${cursorTimeSql('created_at')} AS cursor_at
         FROM api_keys WHERE workspace_id = $1 AND kind = 'key' ${after}
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      // Assigned, not spread: V8 copies a spread object of this many fields on a slow path (~2 us a row).
      data: page.map((r) => Object.assign(new ApiKey(), toListedKey(r), { keyHash: '' })),
      nextCursor: more && last ? encodeTimeCursor(last.cursor_at as string, last.id as string) : null,
    };
  }

  /** The key of this kind with this id (in this workspace, when given), with its workspace. */
  find(id: string, workspaceId?: string | null, kind: ApiKeyKind = 'key'): Promise<ApiKey | null> {
    return this.keys.findOne({
      where: workspaceId ? { id, workspaceId, kind } : { id, kind },
      relations: { workspace: true },
    });
  }

  /** When each of these keys was last used (absent: never). */
  async lastUsed(ids: string[]): Promise<Map<string, Date>> {
    if (ids.length === 0) return new Map();
    const rows = await runSql<Row>(
      this.dataSource,
      'SELECT id, last_used_at FROM api_keys WHERE id = ANY($1::uuid[]) AND last_used_at IS NOT NULL',
      [ids],
    );
    return new Map(rows.map((r) => [r.id as string, r.last_used_at as Date]));
  }

  /** The API key (never an OAuth grant's key: its hash belongs to no secret) with this hash. */
  findByHash(keyHash: string): Promise<ApiKey | null> {
    return this.keys.findOne({ where: { keyHash, kind: 'key' }, relations: { workspace: true } });
  }

  /** Every key of the workspace (API keys and OAuth grants' keys), to revoke them when it is erased. */
  ofWorkspace(workspaceId: string): Promise<Pick<ApiKey, 'id' | 'keyHash'>[]> {
    return this.keys.find({ select: { id: true, keyHash: true }, where: { workspaceId } });
  }

  /** Marks every key of the workspace revoked now (those already revoked keep their time). */
  async revokeAllOfWorkspace(workspaceId: string): Promise<void> {
    await this.keys.update({ workspaceId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** Marks the key revoked now, unless it already is. */
  async revoke(id: string): Promise<void> {
    await this.keys.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** Writes lastUsedAt, unless it was written within the last minute (by any instance). */
  async touchLastUsed(id: string): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'now()' })
      .where("id = :id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')", { id })
      .execute();
  }
}
