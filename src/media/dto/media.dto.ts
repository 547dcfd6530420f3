import { ApiProperty } from '@nestjs/swagger';
import { MEDIA_STATUSES, MediaItem, MediaStatus } from '../media-item.entity';

/** Why a media item is `failed`. */
export class MediaErrorDto {
  /**
   * The error code the upload would have answered had it failed during the request:
   * `VALIDATION_ERROR` (the URL could not be downloaded), `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE`,
   * `CONFLICT`, or `INTERNAL_ERROR` (the download kept being interrupted).
   */
  @ApiProperty({ example: 'UNSUPPORTED_MEDIA_TYPE' })
  code!: string;

  @ApiProperty({ example: "The file's bytes are image/gif, not the declared image/png" })
  message!: string;
}

/** An uploaded (or uploading) media file. */
export class MediaDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /**
   * `uploading` until finalized; `processing` while the service downloads an upload from a URL in the
   * background; `ready` once the bytes are verified; `failed` when the bytes were unusable or the download
   * failed (`error` says why; the bytes are removed); `expired` when the upload was not finalized in time
   * (parts removed).
   */
  @ApiProperty({ enum: MEDIA_STATUSES })
  status!: MediaStatus;

  /** The client's file name (informational). */
  @ApiProperty({ example: 'sunset.png' })
  filename!: string;

  /** The declared type, normalized; verified against the bytes' magic numbers. Empty while `processing` if not known yet. */
  @ApiProperty({ example: 'image/png' })
  mimeType!: string;

  /** Size in bytes (while `processing`: as announced by the server, 0 when it did not say). */
  @ApiProperty({ type: 'integer', example: 12_000_000 })
  size!: number;

  /** Lower-case hex SHA-256: as declared while uploading (null if none was given), of the stored bytes once ready. */
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9a-f]{64}$' })
  sha256!: string | null;

  /** Pixel width once ready (a video's as displayed, rotation applied); null for unfinished uploads. */
  @ApiProperty({ type: 'integer', nullable: true, example: 2000 })
  width!: number | null;

  /** Pixel height once ready (a video's as displayed, rotation applied); null for unfinished uploads. */
  @ApiProperty({ type: 'integer', nullable: true, example: 2000 })
  height!: number | null;

  /** A ready video's duration in milliseconds; null for images. */
  @ApiProperty({ type: 'integer', nullable: true, example: 12_480 })
  durationMs!: number | null;

  /** A ready video's frames per second (null for images, and when the container does not say). */
  @ApiProperty({ type: Number, nullable: true, example: 29.97 })
  frameRate!: number | null;

  /** A ready video's video codec as ffmpeg names it (`h264`, `hevc`, `vp8`, `vp9`, `av1`, ...); null for images. */
  @ApiProperty({ type: String, nullable: true, example: 'h264' })
  videoCodec!: string | null;

  /** A ready video's audio codec (`aac`, `opus`, `mp3`, ...); null for images and silent videos. */
  @ApiProperty({ type: String, nullable: true, example: 'aac' })
  audioCodec!: string | null;

  /** A ready video's bitrate in bits per second (the whole file); null for images. */
  @ApiProperty({ type: 'integer', nullable: true, example: 4_500_000 })
  bitrate!: number | null;

  /**
   * A signed URL of the item's bytes (no API key needed), valid `MEDIA_URL_TTL_SECONDS` from this
   * answer; null until the item is ready. Ask again for a fresh one.
   */
  @ApiProperty({ type: String, nullable: true, format: 'uri' })
  contentUrl!: string | null;

  /** A ready video's poster frame (a JPEG, the variant `poster`) as a signed URL like `contentUrl`; null for images. */
  @ApiProperty({ type: String, nullable: true, format: 'uri' })
  posterUrl!: string | null;

  /**
   * Text alternative for screen readers (up to 1500 characters), sent with the media to the networks that
   * take one (Mastodon, Bluesky, X, LinkedIn); null when none was given.
   */
  @ApiProperty({ type: String, nullable: true, maxLength: 1500, example: 'A red sun setting over a calm sea' })
  altText!: string | null;

  /** Size of every chunk but the last, chosen by the server. */
  @ApiProperty({ type: 'integer', example: 5_242_880 })
  chunkSize!: number;

  /** Number of chunks: ceil(size / chunkSize). */
  @ApiProperty({ type: 'integer', example: 3 })
  totalChunks!: number;

  /** 0-based indexes of the chunks received so far, ascending: resume by sending the others. */
  @ApiProperty({ type: 'integer', isArray: true, example: [0, 2] })
  receivedChunks!: number[];

  /** When an unfinished upload expires (initialize + 24 h); null once ready. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt!: string | null;

  /** Why the item is `failed`; null otherwise (and for items that failed before this was recorded). */
  @ApiProperty({ type: MediaErrorDto, nullable: true })
  error!: MediaErrorDto | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  /**
   * An `uploading` item past its deadline reads as `expired` even before the sweep has removed its parts.
   * `urls`: the signed URLs of a ready item (MediaContentService.urlsOf); null when not given.
   */
  static from(
    m: MediaItem,
    urls: { contentUrl: string | null; posterUrl: string | null } | null = null,
    now: Date = new Date(),
  ): MediaDto {
    const lapsed = m.status === 'uploading' && m.expiresAt !== null && m.expiresAt.getTime() <= now.getTime();
    return {
      id: m.id,
      status: lapsed ? 'expired' : m.status,
      filename: m.filename,
      mimeType: m.mimeType,
      size: m.size,
      sha256: m.sha256,
      width: m.width,
      height: m.height,
      durationMs: m.durationMs ?? null,
      frameRate: m.frameRate ?? null,
      videoCodec: m.videoCodec ?? null,
      audioCodec: m.audioCodec ?? null,
      bitrate: m.bitrate ?? null,
      contentUrl: urls?.contentUrl ?? null,
      posterUrl: urls?.posterUrl ?? null,
      altText: m.altText,
      chunkSize: m.chunkSize,
      totalChunks: m.totalChunks,
      receivedChunks: [...m.receivedChunks].sort((a, b) => a - b),
      expiresAt: m.expiresAt?.toISOString() ?? null,
      error: m.status === 'failed' && m.errorCode ? { code: m.errorCode, message: m.errorMessage ?? '' } : null,
      createdAt: m.createdAt.toISOString(),
    };
  }
}
