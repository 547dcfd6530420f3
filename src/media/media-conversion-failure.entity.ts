import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MediaItem } from './media-item.entity';

/**
 * A video conversion for networks that failed (ffmpeg refused the file or crashed on it): kept so a
 * publisher asking for the same variant again is told at once, rather than the conversion being run
 * again and again until the processing wait runs out. One row per item and variant name; it goes with
 * the item (ON DELETE CASCADE).
 */
@Entity('media_conversion_failures')
export class MediaConversionFailure {
  @PrimaryColumn('uuid')
  mediaId!: string;

  @ManyToOne(() => MediaItem, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItem;

  /** The variant the conversion was to make (`mp4...`, see video-variants). */
  @PrimaryColumn({ type: 'varchar', length: 16 })
  variant!: string;

  /** What went wrong, as ffmpeg's failure was classified (`conversion_failed`, `timeout`, ...). */
  @Column({ type: 'varchar', length: 32 })
  reason!: string;

  /** The failure in words (ffmpeg's last lines, trimmed). */
  @Column({ type: 'text' })
  message!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  failedAt!: Date;
}
