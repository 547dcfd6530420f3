import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { Workspace } from '../workspace.entity';

/** The workspace of the calling key, with its settings. */
export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  name!: string;

  /**
   * When true, every post that would be scheduled or published waits in `pending_approval` until it is
   * approved (POST /posts/{id}/approve), whichever key creates it.
   */
  approvalRequired!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static from(w: Workspace): WorkspaceDto {
    return { id: w.id, name: w.name, approvalRequired: w.approvalRequired, createdAt: w.createdAt.toISOString() };
  }
}

export class UpdateWorkspaceDto {
  /** Whether posts need an approval before they are scheduled or published. */
  @IsOptional()
  @IsBoolean()
  approvalRequired?: boolean;
}
