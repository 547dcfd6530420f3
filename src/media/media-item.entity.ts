import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
  ValueTransformer,
} from 'typeorm';
import { Workspace } from '../auth/workspace.entity';

export type MediaStatus = 'uploading' | 'processing' | 'ready' | 'failed' | 'expired';
export const MEDIA_STATUSES: readonly MediaStatus[] = ['uploading', 'processing', 'ready', 'failed', 'expired'];

/** `bigint` comes back from pg as a string; sizes stay far below 2^53. */
const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * One uploaded file. Its bytes live in `MediaStorage` under the item's id: numbered parts while
 * `uploading`, one immutable object once `ready`. `receivedChunks` is the set of stored parts, kept
 * sorted and updated with one atomic UPDATE per chunk (safe under concurrent chunk uploads).
 * An upload from a URL that takes long is `processing` while a worker downloads it (`sourceUrl`,
 * `importAttempts`, `importClaimedUntil`), then `ready` or `failed` with `errorCode`/`errorMessage`.
 */
@Entity('media')
@Index('IDX_media_workspace_created', ['workspaceId', 'createdAt', 'id'])
@Index('IDX_media_uploading_expires', ['expiresAt'], { where: `status = 'uploading'` })
@Index('IDX_media_processing', ['importClaimedUntil'], { where: `status = 'processing'` })
export class MediaItem {
  /** Chosen by the service before the row is written, so storage and row share it from the start. */
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'uuid' })
  workspaceId!: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Workspace;

  @Column({ type: 'varchar', length: 16 })
  status!: MediaStatus;

  @Column({ type: 'varchar', length: 255 })
  filename!: string;

  /** Normalized (lower-case, no parameters, aliases resolved). */
  @Column({ type: 'varchar', length: 127 })
  mimeType!: string;

  /** Declared at initialize; equal to the stored object's size once `ready`. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  /** Lower-case hex: the declared digest while uploading (or null), the object's digest once `ready`. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sha256!: string | null;

  @Column({ type: 'integer', nullable: true })
  width!: number | null;

  @Column({ type: 'integer', nullable: true })
  height!: number | null;

  /** A video's duration in milliseconds (probed at finalize); null for images. */
  @Column({ type: 'integer', nullable: true })
  durationMs!: number | null;

  /** A video's frames per second, when its container says; null for images. */
  @Column({ type: 'double precision', nullable: true })
  frameRate!: number | null;

  /** A video's video codec as ffmpeg names it (`h264`, `hevc`, `vp9`, ...); null for images. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  videoCodec!: string | null;

  /** A video's audio codec (`aac`, `opus`, ...); null for images and silent videos. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  audioCodec!: string | null;

  /** A video's bits per second (whole file); null for images. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber })
  bitrate!: number | null;

  /** MP4/MOV: whether the index precedes the media data (progressive download); null for WebM and images. */
  @Column({ type: 'boolean', nullable: true })
  faststart!: boolean | null;

  /** A video's pixel format (`yuv420p`, ...); null for images. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  pixelFormat!: string | null;

  /** Text alternative for screen readers, sent to the networks that take one; null when none was given. */
  @Column({ type: 'text', nullable: true })
  altText!: string | null;

  @Column({ type: 'integer' })
  chunkSize!: number;

  @Column({ type: 'integer' })
  totalChunks!: number;

  /** Indexes of the stored parts, ascending and distinct. */
  @Column({ type: 'integer', array: true, default: () => `'{}'` })
  receivedChunks!: number[];

  /**
   * Storage drivers that upload in parts (S3 multipart) keep their upload id here; null for the local disk driver.
   * Written by the driver's store (`media-multipart.store.ts`), not by the service.
   */
  @Column({ type: 'varchar', length: 1024, nullable: true })
  multipartUploadId!: string | null;

  /** Part number (index + 1, as a string key) -> ETag of each part stored under `multipartUploadId`. */
  @Column({ type: 'jsonb', default: () => `'{}'` })
  partEtags!: Record<string, string>;

  /** Deadline of an unfinished upload; null once `ready`. */
  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finalizedAt!: Date | null;

  /** Where an upload from a URL downloads from (kept for the background download and its retries). */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  sourceUrl!: string | null;

  /** Background downloads started for a `processing` item (each claim counts one). */
  @Column({ type: 'integer', default: 0 })
  importAttempts!: number;

  /** Until when the worker running the background download holds it; a lapsed claim is taken over by the sweep. */
  @Column({ type: 'timestamptz', nullable: true })
  importClaimedUntil!: Date | null;

  /** Why the item is `failed`: the error code the request would have answered (`UNSUPPORTED_MEDIA_TYPE`, ...). */
  @Column({ type: 'varchar', length: 32, nullable: true })
  errorCode!: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt!: Date;
}
