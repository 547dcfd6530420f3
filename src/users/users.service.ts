import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { ApiKeysService } from '../auth/api-keys.service';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { consoleConfig } from '../config';
import { Transactions } from '../database/transactions';
import { Membership, Role } from './membership.entity';
import { hashPassword, verifyPassword } from './password';
import { SessionsStore } from './sessions.store';
import { UserLink, UserLinkKind } from './user-link.entity';
import { User } from './user.entity';
import { UsersStore } from './users.store';

export const MIN_PASSWORD_LENGTH = 10;
const LINK_GONE = 'This link is used, expired or unknown; ask for a new one';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

export interface WorkspaceMembership {
  workspaceId: string;
  workspaceName: string;
  role: Role;
}

export interface CreatedLink {
  link: UserLink;
  /** The one-time URL; shown once. */
  url: string;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    throw AppError.invalid([{ field: 'password', message: `must be ${MIN_PASSWORD_LENGTH} to 200 characters long` }]);
  }
}

function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 254) {
    throw AppError.invalid([{ field: 'email', message: 'must be an email address' }]);
  }
  return normalized;
}

/** Users, their memberships of workspaces, and the one-time setup and invitation links. */
@Injectable()
export class UsersService {
  constructor(
    private readonly store: UsersStore,
    private readonly sessions: SessionsStore,
    private readonly workspaces: ApiKeysService,
    private readonly transactions: Transactions,
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
  ) {}

  countUsers(): Promise<number> {
    return this.store.countUsers();
  }

  findByEmail(email: string): Promise<User | null> {
    return this.store.findUserByEmail(normalizeEmail(email));
  }

  findById(id: string): Promise<User | null> {
    return isUuid(id) ? this.store.findUserById(id) : Promise.resolve(null);
  }

  /** The user's password is right; false for unknown users and accounts without a password. */
  async checkCredentials(user: User | null, password: string): Promise<boolean> {
    if (!user?.passwordHash) return false;
    return verifyPassword(password, user.passwordHash);
  }

  membership(userId: string, workspaceId: string): Promise<Membership | null> {
    return this.store.findMembership(userId, workspaceId);
  }

  /** Every workspace the user belongs to, by name. */
  async membershipsOf(userId: string): Promise<WorkspaceMembership[]> {
    const rows = await this.store.membershipsOfUser(userId);
    const names = new Map(
      (await this.workspaces.findWorkspaces(rows.map((r) => r.workspaceId))).map((w) => [w.id, w.name]),
    );
    return rows.map((r) => ({
      workspaceId: r.workspaceId,
      workspaceName: names.get(r.workspaceId) ?? '?',
      role: r.role,
    }));
  }

  async listMembers(workspaceId: string): Promise<MemberView[]> {
    const rows = await this.store.membershipsOfWorkspace(workspaceId);
    const users = new Map((await this.store.findUsersByIds(rows.map((r) => r.userId))).map((u) => [u.id, u]));
    return rows.map((r) => ({
      userId: r.userId,
      email: users.get(r.userId)?.email ?? '?',
      role: r.role,
      joinedAt: r.createdAt,
    }));
  }

  /** Changes a member's role; the last owner cannot be demoted. */
  async changeRole(workspaceId: string, userId: string, role: Role): Promise<void> {
    await this.transactions.run(async (em) => {
      const m = await this.lockMember(em, workspaceId, userId);
      if (m.role === 'owner' && role !== 'owner') await this.assertAnotherOwner(em, workspaceId);
      await this.store.setRole(em, workspaceId, userId, role);
    });
  }

  /** Removes a member and ends their sessions in this workspace; the last owner cannot leave. */
  async removeMember(workspaceId: string, userId: string): Promise<void> {
    await this.transactions.run(async (em) => {
      const m = await this.lockMember(em, workspaceId, userId);
      if (m.role === 'owner') await this.assertAnotherOwner(em, workspaceId);
      await this.store.deleteMembership(em, workspaceId, userId);
      await this.sessions.revokeOfMember(em, workspaceId, userId);
    });
  }

  private async lockMember(em: EntityManager, workspaceId: string, userId: string): Promise<Membership> {
    // Lock every membership of the workspace: two owners demoting each other must not both succeed.
    const all = isUuid(userId) ? await this.store.lockMemberships(em, workspaceId) : [];
    const m = all.find((x) => x.userId === userId);
    if (!m) throw AppError.notFound('Member');
    return m;
  }

  private async assertAnotherOwner(em: EntityManager, workspaceId: string): Promise<void> {
    const owners = await this.store.countOwners(workspaceId, em);
    if (owners <= 1) throw AppError.conflict('A workspace needs an owner: make someone else owner first');
  }

  /** A one-time link; `email` null lets the person choose (first-owner setup only). */
  async createLink(kind: UserLinkKind, workspaceId: string, email: string | null, role: Role): Promise<CreatedLink> {
    const normalized = email === null ? null : checkEmail(email);
    const token = randomBytes(32).toString('base64url');
    const link = await this.store.insertLink({
      tokenHash: hashToken(token),
      kind,
      workspaceId,
      email: normalized,
      role,
      expiresAt: new Date(Date.now() + this.cfg.linkTtlMs),
      usedAt: null,
    });
    const path = kind === 'setup' ? 'setup' : 'invitations/accept';
    return { link, url: `${this.cfg.url}/${path}?token=${token}` };
  }

  /**
   * The link a token names, if unused and unexpired; a setup link only while its workspace has no
   * owner (however the first owner arrived: another setup link, an invitation, the CLI).
   */
  async findUsableLink(token: string): Promise<UserLink | null> {
    if (!token || token.length > 100) return null;
    const link = await this.store.findUsableLink(hashToken(token));
    if (link?.kind === 'setup' && (await this.hasOwner(link.workspaceId))) return null;
    return link;
  }

  private async hasOwner(workspaceId: string, em?: EntityManager): Promise<boolean> {
    return (await this.store.countOwners(workspaceId, em)) > 0;
  }

  /** Open invitations of a workspace (not used, not expired). */
  listOpenInvitations(workspaceId: string): Promise<UserLink[]> {
    return this.store.openInvitations(workspaceId);
  }

  /** One open invitation of the workspace; 404 when it is used, expired, revoked or another's. */
  async getOpenInvitation(workspaceId: string, id: string): Promise<UserLink> {
    const link = isUuid(id) ? await this.store.findOpenInvitation(workspaceId, id) : null;
    if (!link) throw AppError.notFound('Invitation');
    return link;
  }

  /**
   * Revokes an open invitation: the row goes, so its link is unknown from then on (the same answer
   * as a used or expired link). 404 when it is no longer open or belongs to another workspace.
   */
  async revokeInvitation(workspaceId: string, id: string): Promise<void> {
    const deleted = isUuid(id) && (await this.store.deleteOpenInvitation(workspaceId, id));
    if (!deleted) throw AppError.notFound('Invitation');
  }

  /**
   * Uses a link once: creates the account (or sets the password of one without), or checks the
   * password of an existing account, then adds the membership. Returns the user and workspace.
   */
  async acceptLink(
    token: string,
    input: { email?: string; password: string },
  ): Promise<{ user: User; workspaceId: string }> {
    const found = await this.findUsableLink(token);
    if (!found) throw new AppError('NOT_FOUND', LINK_GONE);
    const email = found.email ?? checkEmail(input.email ?? '');
    const existing = await this.findByEmail(email);
    if (existing?.passwordHash) {
      if (!(await verifyPassword(input.password, existing.passwordHash))) {
        throw new AppError('UNAUTHORIZED', 'This email already has an account: enter its password to join');
      }
    } else {
      checkPassword(input.password);
    }
    const passwordHash = existing?.passwordHash ?? (await hashPassword(input.password));
    const outcome = await this.transactions.run(async (em) => {
      if (found.kind === 'setup') {
        // Setup links of one workspace take turns; the first to get here makes the owner, the others
        // find one and are spent with it.
        await this.store.lockSetup(em, found.workspaceId);
        if (await this.hasOwner(found.workspaceId, em)) {
          await this.store.spendSetupLinks(em, found.workspaceId);
          return null;
        }
      }
      if (!(await this.store.useLink(em, found.id))) throw new AppError('NOT_FOUND', LINK_GONE);
      await this.store.insertUserIfMissing(em, email, passwordHash);
      const user = await this.store.userByEmail(em, email);
      if (!user.passwordHash) await this.store.setPassword(em, user.id, passwordHash);
      await this.store.upsertMembership(em, user.id, found.workspaceId, found.role);
      if (found.role === 'owner') await this.store.spendSetupLinks(em, found.workspaceId);
      return { user, workspaceId: found.workspaceId };
    });
    if (!outcome) throw new AppError('NOT_FOUND', LINK_GONE);
    return outcome;
  }

  /** Adds an existing account to a workspace directly (CLI); an owner spends the workspace's setup links. */
  async addMembership(userId: string, workspaceId: string, role: Role): Promise<void> {
    await this.transactions.run(async (em) => {
      await this.store.upsertMembership(em, userId, workspaceId, role);
      // The workspace has an owner: its outstanding setup links are used up.
      if (role === 'owner') await this.store.spendSetupLinks(em, workspaceId);
    });
  }
}
