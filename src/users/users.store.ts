import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, MoreThan, Repository } from 'typeorm';
import { Membership, Role } from './membership.entity';
import { UserLink } from './user-link.entity';
import { User } from './user.entity';

/**
 * The `users`, `memberships` and `user_links` tables (owned by users). Methods
 * taking an EntityManager run in the caller's transaction.
 */
@Injectable()
export class UsersStore {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Membership) private readonly memberships: Repository<Membership>,
    @InjectRepository(UserLink) private readonly links: Repository<UserLink>,
  ) {}

  countUsers(): Promise<number> {
    return this.users.count();
  }

  findUserByEmail(email: string): Promise<User | null> {
    return this.users.findOne({ where: { email } });
  }

  /** The account with this email, in the caller's transaction; throws when there is none. */
  userByEmail(em: EntityManager, email: string): Promise<User> {
    return em.findOneOrFail(User, { where: { email } });
  }

  findUserById(id: string): Promise<User | null> {
    return this.users.findOne({ where: { id } });
  }

  findUsersByIds(ids: string[]): Promise<User[]> {
    return ids.length ? this.users.find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  /** Creates the account unless one with this email exists (then keeps it as it is). */
  async insertUserIfMissing(em: EntityManager, email: string, passwordHash: string): Promise<void> {
    await em.createQueryBuilder().insert().into(User).values({ email, passwordHash }).orIgnore().execute();
  }

  async setPassword(em: EntityManager, userId: string, passwordHash: string): Promise<void> {
    await em.update(User, { id: userId }, { passwordHash });
  }

  findMembership(userId: string, workspaceId: string): Promise<Membership | null> {
    return this.memberships.findOne({ where: { userId, workspaceId } });
  }

  /** The user's memberships, oldest first. */
  membershipsOfUser(userId: string): Promise<Membership[]> {
    return this.memberships.find({ where: { userId }, order: { createdAt: 'ASC' } });
  }

  /** The workspace's memberships, oldest first. */
  membershipsOfWorkspace(workspaceId: string): Promise<Membership[]> {
    return this.memberships.find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
  }

  /** Locks every membership of the workspace (two owners demoting each other must not both succeed). */
  lockMemberships(em: EntityManager, workspaceId: string): Promise<Membership[]> {
    return em.find(Membership, { where: { workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  countOwners(workspaceId: string, em: EntityManager = this.memberships.manager): Promise<number> {
    return em.count(Membership, { where: { workspaceId, role: 'owner' } });
  }

  async setRole(em: EntityManager, workspaceId: string, userId: string, role: Role): Promise<void> {
    await em.update(Membership, { workspaceId, userId }, { role });
  }

  async deleteMembership(em: EntityManager, workspaceId: string, userId: string): Promise<void> {
    await em.delete(Membership, { workspaceId, userId });
  }

  /** Adds the membership, or changes its role when it exists. */
  async upsertMembership(em: EntityManager, userId: string, workspaceId: string, role: Role): Promise<void> {
    await em
      .createQueryBuilder()
      .insert()
      .into(Membership)
      .values({ userId, workspaceId, role })
      .orUpdate(['role'], ['user_id', 'workspace_id'])
      .execute();
  }

  insertLink(link: Omit<UserLink, 'id' | 'createdAt'>): Promise<UserLink> {
    return this.links.save(this.links.create(link));
  }

  /** The unused, unexpired link with this token hash. */
  findUsableLink(tokenHash: string): Promise<UserLink | null> {
    return this.links.findOne({ where: { tokenHash, usedAt: IsNull(), expiresAt: MoreThan(new Date()) } });
  }

  /** Open invitations of a workspace (not used, not expired), newest first, at most 100. */
  openInvitations(workspaceId: string): Promise<UserLink[]> {
    return this.links.find({
      where: { workspaceId, kind: 'invitation', usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
      order: { createdAt: 'DESC' },
      take: 100,
    });
  }

  findOpenInvitation(workspaceId: string, id: string): Promise<UserLink | null> {
    return this.links.findOne({
      where: { id, workspaceId, kind: 'invitation', usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
    });
  }

  /** Deletes an unused invitation of the workspace; false when there was none. */
  async deleteOpenInvitation(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.links.delete({ id, workspaceId, kind: 'invitation', usedAt: IsNull() });
    return !!result.affected;
  }

  /** Marks the link used, if it still is usable; false when it is not (used meanwhile, or expired). */
  async useLink(em: EntityManager, id: string): Promise<boolean> {
    const used = await em
      .createQueryBuilder()
      .update(UserLink)
      .set({ usedAt: () => 'now()' })
      .where('id = :id AND used_at IS NULL AND expires_at > now()', { id })
      .execute();
    return !!used.affected;
  }

  /** Uses up the workspace's outstanding setup links. */
  async spendSetupLinks(em: EntityManager, workspaceId: string): Promise<void> {
    await em.update(UserLink, { workspaceId, kind: 'setup', usedAt: IsNull() }, { usedAt: () => 'now()' });
  }

  /** Setup links of one workspace take turns: a transaction-scoped advisory lock per workspace. */
  async lockSetup(em: EntityManager, workspaceId: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('console-setup'), hashtext($1::text))`, [workspaceId]);
  }
}
