import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors';
import { ApiKeysService } from './api-keys.service';
import { OrganizationsStore } from './organizations.store';
import { WorkspacesService } from './workspaces.service';

/** What `organizations:create` prints: the new organization, its first workspace, and its owner's key. */
export interface CreatedOrganization {
  organizationId: string;
  workspaceId: string;
  key: string;
}

/** Organizations (docs/adr/0052): made from the command line, each with a first workspace and a key. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly organizations: OrganizationsStore,
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
  ) {}

  /**
   * A new organization with one workspace of the same name and a key holding `*` (workspaces:manage
   * among them) in it: the key a platform starts with.
   */
  async create(name: string): Promise<CreatedOrganization> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 100) {
      throw AppError.invalid([{ field: 'name', message: 'must be 1 to 100 characters' }]);
    }
    const organization = await this.organizations.insert(trimmed);
    const workspace = await this.workspaces.create(organization.id, { name: trimmed, externalId: null, metadata: {} });
    const { key } = await this.keys.create(workspace.id, { name: 'owner', scopes: ['*'] });
    return { organizationId: organization.id, workspaceId: workspace.id, key };
  }

  async get(id: string): Promise<{ id: string; name: string }> {
    const organization = await this.organizations.findById(id);
    if (!organization) throw AppError.notFound('Organization');
    return { id: organization.id, name: organization.name };
  }
}
