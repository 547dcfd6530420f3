import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { deleteInBatches } from '../database/batched-delete';
import { Session } from './session.entity';

/** The `console_sessions` table (owned by users). */
@Injectable()
export class SessionsStore {
  constructor(@InjectRepository(Session) private readonly sessions: Repository<Session>) {}

  insert(session: Omit<Session, 'id' | 'createdAt'>): Promise<Session> {
    return this.sessions.save(this.sessions.create(session));
  }

  /** The session with this token hash, unless revoked. */
  findUnrevoked(tokenHash: string): Promise<Session | null> {
    return this.sessions.findOne({ where: { tokenHash, revokedAt: IsNull() } });
  }

  async touch(id: string): Promise<void> {
    await this.sessions.update({ id }, { lastSeenAt: () => 'now()' });
  }

  async setWorkspace(id: string, workspaceId: string): Promise<void> {
    await this.sessions.update({ id }, { workspaceId });
  }

  async revoke(id: string): Promise<void> {
    await this.sessions.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** Ends the user's sessions in this workspace (they left it), in the caller's transaction. */
  async revokeOfMember(em: EntityManager, workspaceId: string, userId: string): Promise<void> {
    await em.update(Session, { workspaceId, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /**
   * Deletes sessions that ended more than `days` days ago (revoked, past their absolute expiry, or idle
   * for `idleMs` more), in batches that skip locked rows; returns how many went.
   */
  deleteEnded(days: number, idleMs: number, batchSize: number, stop?: () => boolean): Promise<number> {
    return deleteInBatches(
      (sql, params) => this.sessions.query(sql, params),
      'console_sessions',
      `SELECT id FROM console_sessions
        WHERE revoked_at < now() - make_interval(days => $1)
           OR expires_at < now() - make_interval(days => $1)
           OR last_seen_at < now() - make_interval(days => $1, secs => $2::double precision / 1000)`,
      [days, idleMs],
      batchSize,
      stop,
    );
  }
}
