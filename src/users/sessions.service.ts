import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { consoleConfig } from '../config';
import { Role } from './membership.entity';
import { Session } from './session.entity';
import { SessionsStore } from './sessions.store';
import { User } from './user.entity';
import { UsersService, hashToken } from './users.service';

const TOUCH_EVERY_MS = 60_000;

/** What a valid session cookie resolves to. */
export interface ConsoleActor {
  sessionId: string;
  userId: string;
  email: string;
  workspaceId: string;
  role: Role;
}

/**
 * Console sessions: a random 256-bit token in the cookie, its SHA-256 in Postgres, ended by
 * sign-out, idle time, absolute age, or losing the membership.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly sessions: SessionsStore,
    private readonly users: UsersService,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
  ) {}

  /** Starts a session; the returned token goes into the cookie and nowhere else. */
  async start(userId: string, workspaceId: string): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session = await this.sessions.insert({
      tokenHash: hashToken(token),
      userId,
      workspaceId,
      lastSeenAt: new Date(now),
      expiresAt: new Date(now + this.cfg.absoluteMs),
      revokedAt: null,
    });
    return { token, session };
  }

  /** Signs in on the user's first workspace; null when they belong to none. */
  async startForUser(user: User): Promise<{ token: string; session: Session } | null> {
    const [first] = await this.users.membershipsOf(user.id);
    return first ? this.start(user.id, first.workspaceId) : null;
  }

  /** The actor behind a cookie token, or null (unknown, revoked, idle, expired, no longer a member). */
  async resolve(token: string | undefined): Promise<ConsoleActor | null> {
    if (!token || token.length > 100) return null;
    const session = await this.sessions.findUnrevoked(hashToken(token));
    if (!session) return null;
    const now = Date.now();
    if (session.expiresAt.getTime() <= now || session.lastSeenAt.getTime() + this.cfg.idleMs <= now) {
      await this.revoke(session.id);
      return null;
    }
    const [user, membership] = await Promise.all([
      this.users.findById(session.userId),
      this.users.membership(session.userId, session.workspaceId),
    ]);
    if (!user || !membership) return null;
    if (now - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      this.sessions
        .touch(session.id)
        .catch((err: Error) => this.logger.warn(`Could not record session use: ${err.message}`));
    }
    return {
      sessionId: session.id,
      userId: user.id,
      email: user.email,
      workspaceId: session.workspaceId,
      role: membership.role,
    };
  }

  /** Moves the session to another of the user's workspaces. */
  async switchWorkspace(actor: ConsoleActor, workspaceId: string): Promise<boolean> {
    if (!(await this.users.membership(actor.userId, workspaceId))) return false;
    await this.sessions.setWorkspace(actor.sessionId, workspaceId);
    return true;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId);
  }

  /**
   * Deletes sessions that ended more than `days` days ago (signed out, past their absolute expiry, or idle
   * for longer than CONSOLE_SESSION_IDLE_MINUTES), in batches (retention). A live session is never
   * deleted. Returns how many went.
   */
  pruneEnded(days: number, batchSize: number, stop?: () => boolean): Promise<number> {
    return this.sessions.deleteEnded(days, this.cfg.idleMs, batchSize, stop);
  }
}
