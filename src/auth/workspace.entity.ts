import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Organization } from './organization.entity';

/** A tenant: every resource belongs to exactly one workspace, every workspace to one organization. */
@Entity('workspaces')
@Index('UQ_workspaces_organization_name', ['organizationId', 'name'], { unique: true })
@Index('UQ_workspaces_organization_external_id', ['organizationId', 'externalId'], {
  unique: true,
  where: '"external_id" IS NOT NULL',
})
export class Workspace {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  organizationId!: string;

  @ManyToOne(() => Organization, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'organization_id' })
  organization?: Organization;

  /** Unique in its organization. */
  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The platform's own id for this workspace (its customer's id), unique in the organization. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  externalId!: string | null;

  /** A small map of the platform's own strings (workspace-metadata.ts bounds it). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: Record<string, string>;

  /** Every post that would be scheduled or published waits for an approval, whoever creates it (docs/adr/0034). */
  @Column({ type: 'boolean', default: false })
  approvalRequired!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  /**
   * Set when its erasure was asked for (docs/adr/0052): from then on the workspace is 404 everywhere and
   * its keys are revoked; the erasure job removes everything of it, the row last.
   */
  @Index('IDX_workspaces_deleted_at', { where: '"deleted_at" IS NOT NULL' })
  @Column({ type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
