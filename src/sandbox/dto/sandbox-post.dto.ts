import { ApiProperty } from '@nestjs/swagger';
import type { SandboxPost } from '../sandbox-post.entity';

export class SandboxMediaDto {
  /** The media item's id in this service. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  mimeType!: string;

  /** Bytes the network received. */
  size!: number;

  /** Hex SHA-256 of the bytes the network received. */
  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' })
  sha256!: string;

  /** A video's duration in milliseconds; null for images. */
  @ApiProperty({ type: 'integer', nullable: true, example: 12_480 })
  durationMs!: number | null;
}

/** The options a sandbox post was published with (`targets[i].options`, defaults filled in). */
export class SandboxPostOptionsDto {
  @ApiProperty({ enum: ['public', 'unlisted', 'private'] })
  visibility!: 'public' | 'unlisted' | 'private';

  /** Shown before the post's text; null when none. */
  @ApiProperty({ type: String, nullable: true })
  contentWarning!: string | null;
}

/** A post on a sandbox account's timeline: what the network received and shows. */
export class SandboxPostDto {
  /** Id on the sandbox network: the target's `platformPostId`. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  content!: string;

  @ApiProperty({ type: [SandboxMediaDto] })
  media!: SandboxMediaDto[];

  /** The sandbox post this one replies to; null for a top-level post. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  inReplyTo!: string | null;

  /** The target's options the post was published with. */
  @ApiProperty({ type: SandboxPostOptionsDto })
  options!: SandboxPostOptionsDto;

  /** When it appeared on the timeline. */
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static from(p: SandboxPost): SandboxPostDto {
    return {
      id: p.id,
      content: p.content,
      media: p.media.map((m) => ({
        id: m.id,
        mimeType: m.mimeType,
        size: m.size,
        sha256: m.sha256,
        durationMs: m.durationMs ?? null,
      })),
      inReplyTo: p.inReplyTo,
      options: { visibility: p.options.visibility ?? 'public', contentWarning: p.options.contentWarning ?? null },
      createdAt: (p.publishedAt ?? p.createdAt).toISOString(),
    };
  }
}
