import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { Workspace } from '../workspace.entity';

/** A workspace, with its settings: the calling key's (GET /workspace), or one of its organization's (/workspaces). */
export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Unique in its organization. */
  name!: string;

  /** The platform's own id for this workspace (say, its customer's id), unique in the organization; null when none. */
  @ApiProperty({ type: String, nullable: true, example: 'customer-4711' })
  externalId!: string | null;

  /** The platform's own strings about this workspace, returned as given. */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { plan: 'pro' } })
  metadata!: Record<string, string>;

  /**
   * When true, every post that would be scheduled or published waits in `pending_approval` until it is
   * approved (POST /posts/{id}/approve), whichever key creates it.
   */
  approvalRequired!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static from(w: Workspace): WorkspaceDto {
    return {
      id: w.id,
      name: w.name,
      externalId: w.externalId,
      metadata: w.metadata,
      approvalRequired: w.approvalRequired,
      createdAt: w.createdAt.toISOString(),
    };
  }
}

export class UpdateWorkspaceDto {
  /** Whether posts need an approval before they are scheduled or published. */
  @IsOptional()
  @IsBoolean()
  approvalRequired?: boolean;
}
