import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, Not, Repository } from 'typeorm';
import { Page } from '../common/pagination/pagination';
import { paginate } from '../database/keyset-pagination';
import { DEFAULT_ORGANIZATION_ID } from './organization.entity';
import { Workspace } from './workspace.entity';

/** The unique indexes a new or renamed workspace may collide with (the service words the 409 by them). */
export const WORKSPACE_NAME_INDEX = 'UQ_workspaces_organization_name';
export const WORKSPACE_EXTERNAL_ID_INDEX = 'UQ_workspaces_organization_external_id';

export interface WorkspaceFields {
  name: string;
  externalId: string | null;
  metadata: Record<string, string>;
}

/**
 * The `workspaces` table (owned by auth). A workspace whose erasure was asked for (`deleted_at` set) is
 * found by none of the readers but `findErasing`/`erasing`: it is 404 from that moment on.
 */
@Injectable()
export class WorkspacesStore {
  constructor(@InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>) {}

  /** The workspace with this name (the default organization's first), or (when `maybeId` is a uuid) this id. */
  findByNameOrId(nameOrId: string, maybeId: boolean): Promise<Workspace | null> {
    const byName = { name: nameOrId, deletedAt: IsNull() };
    return this.workspaces.findOne({
      where: maybeId ? [{ id: nameOrId, deletedAt: IsNull() }, byName] : byName,
      order: { createdAt: 'ASC' },
    });
  }

  /** Creates the workspace in the default organization unless one of that name exists there, then reads it. */
  async ensure(name: string): Promise<Workspace> {
    await this.workspaces
      .createQueryBuilder()
      .insert()
      .values({ name, organizationId: DEFAULT_ORGANIZATION_ID })
      .orIgnore()
      .execute();
    return this.workspaces.findOneOrFail({ where: { name, organizationId: DEFAULT_ORGANIZATION_ID } });
  }

  /** Inserts a workspace; a unique violation (name or externalId in the organization) is the caller's to word. */
  insert(organizationId: string, fields: WorkspaceFields): Promise<Workspace> {
    return this.workspaces.save(this.workspaces.create({ organizationId, ...fields }));
  }

  findByIds(ids: string[]): Promise<Workspace[]> {
    return ids.length ? this.workspaces.find({ where: { id: In(ids), deletedAt: IsNull() } }) : Promise.resolve([]);
  }

  findById(id: string): Promise<Workspace | null> {
    return this.workspaces.findOne({ where: { id, deletedAt: IsNull() } });
  }

  /** The live workspace with this id in this organization. */
  findInOrganization(organizationId: string, id: string): Promise<Workspace | null> {
    return this.workspaces.findOne({ where: { id, organizationId, deletedAt: IsNull() } });
  }

  /** The organization's live workspaces, oldest first (keyset pages), optionally those with this externalId. */
  page(organizationId: string, limit: number, cursor?: string, externalId?: string): Promise<Page<Workspace>> {
    const qb = this.workspaces
      .createQueryBuilder('w')
      .where('w.organization_id = :organizationId AND w.deleted_at IS NULL', { organizationId });
    if (externalId !== undefined) qb.andWhere('w.external_id = :externalId', { externalId });
    return paginate(qb, { sortColumn: 'w.created_at', idColumn: 'w.id', direction: 'ASC', limit, cursor });
  }

  /** Every live workspace of the organization (the console's overview, the event of an erasure). */
  allOfOrganization(organizationId: string): Promise<Workspace[]> {
    return this.workspaces.find({
      where: { organizationId, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  async update(id: string, changes: Partial<WorkspaceFields> & { approvalRequired?: boolean }): Promise<void> {
    if (Object.keys(changes).length) await this.workspaces.update({ id, deletedAt: IsNull() }, changes);
  }

  async setApprovalRequired(id: string, approvalRequired: boolean): Promise<void> {
    await this.workspaces.update({ id }, { approvalRequired });
  }

  /** Marks the workspace as being erased; false when it was not live. */
  async markDeleted(id: string): Promise<boolean> {
    const result = await this.workspaces.update({ id, deletedAt: IsNull() }, { deletedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /** A workspace whose erasure was asked for and is not finished. */
  findErasing(id: string): Promise<Workspace | null> {
    return this.workspaces.findOne({ where: { id, deletedAt: Not(IsNull()) } });
  }

  /** The ids of every workspace whose erasure is not finished (the reconciler re-enqueues them). */
  async erasing(): Promise<string[]> {
    const rows = await this.workspaces.find({ select: { id: true }, where: { deletedAt: Not(IsNull()) } });
    return rows.map((r) => r.id);
  }

  /** Deletes the row of an erased workspace; every table holding a workspace_id cascades from it. */
  async deleteErased(id: string, em?: EntityManager): Promise<void> {
    await (em ?? this.workspaces.manager).getRepository(Workspace).delete({ id, deletedAt: Not(IsNull()) });
  }

  count(): Promise<number> {
    return this.workspaces.count({ where: { deletedAt: IsNull() } });
  }
}
