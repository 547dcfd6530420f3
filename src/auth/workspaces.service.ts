import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppError } from '../common/errors';
import { Page } from '../common/pagination/pagination';
import { isUuid } from '../common/validators';
import { ApiKeyCache } from './api-key.cache';
import { ApiKeysStore } from './api-keys.store';
import { Workspace } from './workspace.entity';
import {
  WORKSPACE_EXTERNAL_ID_INDEX,
  WORKSPACE_NAME_INDEX,
  WorkspaceFields,
  WorkspacesStore,
} from './workspaces.store';

interface PgError {
  driverError?: { code?: string; constraint?: string };
  code?: string;
  constraint?: string;
}

/** The 409 of a name or externalId already taken in the organization; rethrows anything else. */
function conflictOf(err: unknown): never {
  const e = err as PgError;
  const code = e.driverError?.code ?? e.code;
  const constraint = e.driverError?.constraint ?? e.constraint;
  if (code === '23505' && constraint === WORKSPACE_EXTERNAL_ID_INDEX) {
    throw AppError.conflict('A workspace of this organization already has this externalId');
  }
  if (code === '23505' && constraint === WORKSPACE_NAME_INDEX) {
    throw AppError.conflict('A workspace of this organization already has this name');
  }
  throw err;
}

/**
 * A workspace's own settings (GET/PATCH /workspace, the console's settings), and the workspaces of an
 * organization as a platform manages them (/workspaces, docs/adr/0052).
 */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesStore,
    private readonly keys: ApiKeysStore,
    private readonly cache: ApiKeyCache,
  ) {}

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

  /** A live workspace of the organization; 404 for another organization's, an unknown or an erased one. */
  async getInOrganization(organizationId: string, id: string): Promise<Workspace> {
    const workspace = isUuid(id) ? await this.workspaces.findInOrganization(organizationId, id) : null;
    if (!workspace) throw AppError.notFound('Workspace');
    return workspace;
  }

  async create(organizationId: string, fields: WorkspaceFields): Promise<Workspace> {
    try {
      return await this.workspaces.insert(organizationId, fields);
    } catch (err) {
      conflictOf(err);
    }
  }

  list(organizationId: string, limit: number, cursor?: string, externalId?: string): Promise<Page<Workspace>> {
    return this.workspaces.page(organizationId, limit, cursor, externalId);
  }

  /** Every live workspace of the organization, oldest first. */
  allOfOrganization(organizationId: string): Promise<Workspace[]> {
    return this.workspaces.allOfOrganization(organizationId);
  }

  async change(organizationId: string, id: string, changes: Partial<WorkspaceFields>): Promise<Workspace> {
    await this.getInOrganization(organizationId, id);
    try {
      await this.workspaces.update(id, changes);
    } catch (err) {
      conflictOf(err);
    }
    return this.getInOrganization(organizationId, id);
  }

  /**
   * The first step of an erasure (docs/adr/0052), what DELETE /workspaces/{id} does before it answers:
   * marks the workspace erased (404 from now on) and revokes every key of it, OAuth grants' keys too,
   * on every instance at once (ApiKeyCache.invalidate: the revocation marker and the eviction message).
   * Returns false when it was not live (already being erased).
   */
  async markErased(organizationId: string, id: string): Promise<Workspace> {
    const workspace = await this.getInOrganization(organizationId, id);
    if (!(await this.workspaces.markDeleted(id))) throw AppError.notFound('Workspace');
    await this.revokeKeys(id);
    return workspace;
  }

  /** Revokes every key of the workspace and drops them from every instance's cache (idempotent). */
  async revokeKeys(workspaceId: string): Promise<void> {
    await this.keys.revokeAllOfWorkspace(workspaceId);
    for (const key of await this.keys.ofWorkspace(workspaceId)) await this.cache.invalidate(key.keyHash, key.id);
  }

  /** A workspace whose erasure is asked for and not finished; null when there is none (finished). */
  findErasing(id: string): Promise<Workspace | null> {
    return this.workspaces.findErasing(id);
  }

  /** Every workspace whose erasure is not finished. */
  erasing(): Promise<string[]> {
    return this.workspaces.erasing();
  }

  /** The last step of an erasure: the row, and with it every row that still names the workspace (cascade). */
  deleteErased(id: string, em?: EntityManager): Promise<void> {
    return this.workspaces.deleteErased(id, em);
  }
}
