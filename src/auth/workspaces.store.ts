import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Workspace } from './workspace.entity';

/** The `workspaces` table (owned by auth). */
@Injectable()
export class WorkspacesStore {
  constructor(@InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>) {}

  /** The workspace with this name, or (when `maybeId` is a uuid) this id. */
  findByNameOrId(nameOrId: string, maybeId: boolean): Promise<Workspace | null> {
    return this.workspaces.findOne({ where: maybeId ? [{ id: nameOrId }, { name: nameOrId }] : { name: nameOrId } });
  }

  /** Creates the workspace unless one of that name exists (a concurrent creator wins), then reads it. */
  async ensure(name: string): Promise<Workspace> {
    await this.workspaces.createQueryBuilder().insert().values({ name }).orIgnore().execute();
    return this.workspaces.findOneOrFail({ where: { name } });
  }

  findByIds(ids: string[]): Promise<Workspace[]> {
    return ids.length ? this.workspaces.find({ where: { id: In(ids) } }) : Promise.resolve([]);
  }

  findById(id: string): Promise<Workspace | null> {
    return this.workspaces.findOne({ where: { id } });
  }

  async setApprovalRequired(id: string, approvalRequired: boolean): Promise<void> {
    await this.workspaces.update({ id }, { approvalRequired });
  }

  count(): Promise<number> {
    return this.workspaces.count();
  }
}
