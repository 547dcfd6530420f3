import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { deleteInBatches } from '../database/batched-delete';
import { OAuthConnection } from './oauth-connection.entity';
import { OAuthState } from './oauth-state.entity';

type Row = Record<string, unknown>;

/** A state the callback consumed. */
export type ConsumedState = Pick<
  OAuthState,
  'id' | 'workspaceId' | 'provider' | 'codeVerifier' | 'redirectUri' | 'expiresAt' | 'connectLinkId'
>;

/** Columns and mapper of consumeState (raw SQL; checked against the entity by test/database/row-mappings). */
export const CONSUMED_STATE_COLUMNS =
  'id, workspace_id, provider, code_verifier, redirect_uri, expires_at, connect_link_id';
export function toConsumedState(r: Row): ConsumedState {
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    provider: r.provider as string,
    codeVerifier: r.code_verifier as string,
    redirectUri: r.redirect_uri as string | null,
    expiresAt: r.expires_at as Date,
    connectLinkId: (r.connect_link_id as string | null) ?? null,
  };
}

/** The `oauth_states` and `oauth_connections` tables (owned by oauth). */
@Injectable()
export class OAuthStore {
  constructor(
    @InjectRepository(OAuthState) private readonly states: Repository<OAuthState>,
    @InjectRepository(OAuthConnection) private readonly connections: Repository<OAuthConnection>,
    private readonly dataSource: DataSource,
  ) {}

  async insertState(state: Omit<OAuthState, 'createdAt' | 'workspace'>): Promise<void> {
    await this.states.insert(state);
  }

  /** Marks the unused state with this hash used, once and atomically, and returns it; undefined when none. */
  async consumeState(stateHash: string): Promise<ConsumedState | undefined> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [rows] = await this.states.query<[Row[], number]>(
      `UPDATE oauth_states SET used_at = now()
        WHERE state_hash = $1 AND used_at IS NULL
        RETURNING ${CONSUMED_STATE_COLUMNS}`,
      [stateHash],
    );
    return rows[0] ? toConsumedState(rows[0]) : undefined;
  }

  async insertConnection(connection: Omit<OAuthConnection, 'createdAt' | 'workspace'>): Promise<void> {
    await this.connections.insert(connection);
  }

  findConnection(workspaceId: string, id: string): Promise<OAuthConnection | null> {
    return this.connections.findOne({ where: { id, workspaceId } });
  }

  /** The workspace's connection, locked for the caller's transaction. */
  lockConnection(em: EntityManager, workspaceId: string, id: string): Promise<OAuthConnection | null> {
    return em
      .getRepository(OAuthConnection)
      .findOne({ where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  async markConnectionUsed(em: EntityManager, id: string): Promise<void> {
    await em.getRepository(OAuthConnection).update({ id }, { usedAt: new Date() });
  }

  /**
   * Deletes expired states (used or not), then expired connections, in batches that skip locked rows;
   * `stop` ends the run between two.
   */
  async deleteExpired(batchSize: number, stop: () => boolean): Promise<{ states: number; connections: number }> {
    const query = (sql: string, params: unknown[]) => this.dataSource.query(sql, params);
    const states = await deleteInBatches(
      query,
      'oauth_states',
      'SELECT id FROM oauth_states WHERE expires_at < now()',
      [],
      batchSize,
      stop,
    );
    const connections = stop()
      ? 0
      : await deleteInBatches(
          query,
          'oauth_connections',
          'SELECT id FROM oauth_connections WHERE expires_at < now()',
          [],
          batchSize,
          stop,
        );
    return { states, connections };
  }
}
