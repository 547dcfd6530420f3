import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors';
import { Workspace } from './workspace.entity';
import { WorkspacesStore } from './workspaces.store';

/** A workspace's own settings (GET/PATCH /workspace, the console's settings). */
@Injectable()
export class WorkspacesService {
  constructor(private readonly workspaces: WorkspacesStore) {}

  async get(workspaceId: string): Promise<Workspace> {
    const workspace = await this.workspaces.findById(workspaceId);
    if (!workspace) throw AppError.notFound('Workspace');
    return workspace;
  }

  /** Whether every post that would go out waits for an approval (posts asks on each create and edit). */
  async approvalRequired(workspaceId: string): Promise<boolean> {
    return (await this.get(workspaceId)).approvalRequired;
  }

  async update(workspaceId: string, changes: { approvalRequired?: boolean }): Promise<Workspace> {
    if (changes.approvalRequired !== undefined) {
      await this.workspaces.setApprovalRequired(workspaceId, changes.approvalRequired);
    }
    return this.get(workspaceId);
  }
}
