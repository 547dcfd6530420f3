import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, ValueTransformer } from 'typeorm';
import { MediaItem } from './media-item.entity';

/** `bigint` comes back from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * A file derived from a media item, made once and kept with it: an image converted to another type
 * for a network that takes only some (Instagram: JPEG), a video's poster frame, a video converted to
 * H.264/AAC MP4 (or with its index moved first). Its bytes are in `MediaStorage` under the item's id
 * and the variant's name (`jpeg`, `png`, `webp`, `poster`, `mp4...`). The primary key makes one row
 * per item and name; the row goes with the item (ON DELETE CASCADE), its bytes are removed with the item's.
 */
@Entity('media_variants')
export class MediaVariant {
  @PrimaryColumn('uuid')
  mediaId!: string;

  @ManyToOne(() => MediaItem, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItem;

  /**
   * The variant's name, in storage and in signed URLs: an image's type (`jpeg`, `png`, `webp`), a
   * video's poster frame (`poster`), a video converted for networks (`mp4...`, see video-variants).
   */
  @PrimaryColumn({ type: 'varchar', length: 16 })
  variant!: string;

  /** The type of the variant's bytes, e.g. `image/jpeg`. */
  @Column({ type: 'varchar', length: 127 })
  mimeType!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  @Column({ type: 'integer' })
  width!: number;

  @Column({ type: 'integer' })
  height!: number;

  /** A video variant's duration in milliseconds; null for images and posters. */
  @Column({ type: 'integer', nullable: true })
  durationMs!: number | null;

  /** Lower-case hex SHA-256 of the stored bytes. */
  @Column({ type: 'varchar', length: 64 })
  sha256!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
