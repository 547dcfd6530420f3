import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, ValueTransformer } from 'typeorm';
import { MediaItem } from './media-item.entity';

/** `bigint` comes back from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * A media item converted to another type for a network that takes only some (Instagram: JPEG),
 * converted once at publish time and kept with the item: its bytes are in `MediaStorage` under the
 * item's id and the variant's name (`jpeg`, `png`, `webp`). The primary key makes one row per item
 * and type; the row goes with the item (ON DELETE CASCADE), its bytes are removed with the item's.
 */
@Entity('media_variants')
export class MediaVariant {
  @PrimaryColumn('uuid')
  mediaId!: string;

  @ManyToOne(() => MediaItem, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'media_id' })
  media?: MediaItem;

  /** The converted type, e.g. `image/jpeg`. */
  @PrimaryColumn({ type: 'varchar', length: 127 })
  mimeType!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  @Column({ type: 'integer' })
  width!: number;

  @Column({ type: 'integer' })
  height!: number;

  /** Lower-case hex SHA-256 of the stored bytes. */
  @Column({ type: 'varchar', length: 64 })
  sha256!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
