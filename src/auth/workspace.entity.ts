import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A tenant: every resource belongs to exactly one workspace. */
@Entity('workspaces')
export class Workspace {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 100, unique: true })
  name!: string;

  /** Every post that would be scheduled or published waits for an approval, whoever creates it (docs/adr/0034). */
  @Column({ type: 'boolean', default: false })
  approvalRequired!: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
