import { Injectable } from '@nestjs/common';
import type { Workspace } from '../auth/workspace.entity';
import { OrganizationsService } from '../auth/organizations.service';
import { WorkspacesService } from '../auth/workspaces.service';
import { WorkspaceUsage, WorkspaceUsageService } from './workspace-usage.service';

/** The console's organization page: the organization, its workspaces, each with its usage in a window. */
export interface OrganizationOverview {
  organization: { id: string; name: string };
  from: Date;
  to: Date;
  workspaces: Array<{ workspace: Workspace; usage: WorkspaceUsage }>;
}

/**
 * What the console shows an organization's owners (docs/adr/0052): the owners of the organization's first
 * (oldest live) workspace. Null for anyone else's workspace, so a customer made owner of their own
 * workspace sees nothing of the others.
 */
@Injectable()
export class OrganizationOverviewService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly organizations: OrganizationsService,
    private readonly usage: WorkspaceUsageService,
  ) {}

  async overviewFor(workspaceId: string, days: number): Promise<OrganizationOverview | null> {
    const own = await this.workspaces.get(workspaceId);
    const all = await this.workspaces.allOfOrganization(own.organizationId);
    if (all[0]?.id !== workspaceId) return null;
    const to = new Date();
    const from = new Date(to.getTime() - days * 86_400_000);
    return {
      organization: await this.organizations.get(own.organizationId),
      from,
      to,
      workspaces: await Promise.all(
        all.map(async (workspace) => ({ workspace, usage: await this.usage.usage(workspace.id, from, to) })),
      ),
    };
  }
}
