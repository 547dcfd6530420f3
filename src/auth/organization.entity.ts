import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The owner of workspaces (docs/adr/0052): a platform built on the service is one organization, each of
 * its customers a workspace. Keys holding `workspaces:manage` manage the workspaces of their own
 * workspace's organization; nothing crosses organizations.
 */
@Entity('organizations')
export class Organization {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}

/** The organization the migration put every workspace made before organizations in (and the CLI's `default`). */
export const DEFAULT_ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001';
