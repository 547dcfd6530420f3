import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MediaItem } from './media-item.entity';

/**
 * A video conversion for networks that is asked for and not finished (docs/adr/0050): one row per item
 * and variant, so every publication asking for the same copy (a poll, a retry, another post, a job
 * delivered twice) finds it instead of starting another ffmpeg. Its budget is the publications
 * waiting for it: `waitUntil` is the latest time any of them still waits, `waiters` the targets that
 * do; the worker running it stops ffmpeg once the time has passed or nobody waits. The row goes when
 * the conversion ends: the copy is then a row of `media_variants`, a failure one of
 * `media_conversion_failures`. It goes with the item (ON DELETE CASCADE).
 */
@Entity('media_video_conversions')
export class MediaVideoConversion {
  @PrimaryColumn('uuid')
  mediaId!: string;

  @ManyToOne(() => MediaItem, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItem;

  /** The variant the conversion makes (`mp4...`, see video-variants). */
  @PrimaryColumn({ type: 'varchar', length: 16 })
  variant!: string;

  /** The latest time a publication waiting for the copy still waits; the conversion is stopped then. */
  @Column({ type: 'timestamptz' })
  waitUntil!: Date;

  /** Who waits (publish targets, by id); a waiter that stops waiting is removed, and none left stops it. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  waiters!: string[];

  /** The run that holds it (a random token), while one does. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  runner!: string | null;

  /** Renewed by the run every few seconds; a run whose heartbeat is old is dead and may be replaced. */
  @Column({ type: 'timestamptz', nullable: true })
  heartbeatAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  askedAt!: Date;
}
