import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The record of one periodic job (see PeriodicJobs): when it last ran, in any process, and how it ended. */
@Entity('scheduled_jobs')
export class ScheduledJob {
  /** The job's name, e.g. `posts.reconcile`; also the key of its advisory lock. */
  @PrimaryColumn({ type: 'varchar', length: 100 })
  name!: string;

  /** Period the job was last registered with, in ms. */
  @Column({ type: 'integer' })
  everyMs!: number;

  @Column({ type: 'timestamptz', nullable: true })
  lastStartedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastFinishedAt!: Date | null;

  /** Message of the last run's failure; null after a success. */
  @Column({ type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ type: 'integer', default: 0 })
  runs!: number;
}
