import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { parseWithSchema } from '../credentials-schema';
import {
  SANDBOX_DEFAULT_PROCESSING_SECONDS,
  SANDBOX_DEFAULT_VIDEO_SECONDS,
  SANDBOX_MAX_CHARACTERS,
  SANDBOX_MAX_MEDIA,
  SANDBOX_MAX_VIDEO_SECONDS,
} from './sandbox.limits';

/** Sandbox: a network inside the service; no account needed (docs/guide.md section 11). */
export class SandboxCredentialsDto {
  @ApiProperty({ example: 'My sandbox', maxLength: 100, description: 'Display name of the sandbox account' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  @ApiProperty({
    required: false,
    minimum: 1,
    maximum: SANDBOX_MAX_CHARACTERS,
    default: 500,
    description: 'Longest post, in characters (graphemes)',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(SANDBOX_MAX_CHARACTERS)
  maxCharacters?: number;

  @ApiProperty({
    required: false,
    minimum: 0,
    maximum: SANDBOX_MAX_MEDIA,
    default: 4,
    description: 'Most media per post',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(SANDBOX_MAX_MEDIA)
  maxMedia?: number;

  @ApiProperty({
    required: false,
    default: true,
    description: 'Whether posts may carry a thread; false plays a network without replies (threads refused)',
  })
  @IsOptional()
  @IsBoolean()
  threads?: boolean;

  @ApiProperty({
    required: false,
    minimum: 0,
    maximum: SANDBOX_MAX_VIDEO_SECONDS,
    default: SANDBOX_DEFAULT_VIDEO_SECONDS,
    description: 'Longest video the account takes, in seconds; 0: no video (limits.video is null)',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(SANDBOX_MAX_VIDEO_SECONDS)
  maxVideoSeconds?: number;

  @ApiProperty({
    required: false,
    minimum: 0,
    maximum: 3600,
    default: SANDBOX_DEFAULT_PROCESSING_SECONDS,
    description:
      'How long the sandbox "processes" a video after receiving it before the post appears (the publisher polls meanwhile); 0: at once',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600)
  videoProcessingSeconds?: number;

  @ApiProperty({
    required: false,
    default: true,
    description: 'Whether posts may carry a first comment; false plays a network without comments (refused)',
  })
  @IsOptional()
  @IsBoolean()
  firstComment?: boolean;
}

/** What is stored (sealed) for a sandbox channel: the given fields plus the timeline's account id. */
class StoredSandboxCredentials extends SandboxCredentialsDto {
  @IsUUID()
  accountId!: string;
}

export interface SandboxCredentials {
  name: string;
  maxCharacters?: number;
  maxMedia?: number;
  threads?: boolean;
  maxVideoSeconds?: number;
  videoProcessingSeconds?: number;
  firstComment?: boolean;
}

export interface StoredSandboxAccount extends SandboxCredentials {
  accountId: string;
}

/** The credentials given to connect; throws InvalidCredentialsError. */
export function parseSandboxCredentials(raw: unknown): SandboxCredentials {
  const c = parseWithSchema(SandboxCredentialsDto, raw, 'Sandbox credentials') as unknown as SandboxCredentials;
  return {
    name: c.name.trim(),
    maxCharacters: c.maxCharacters,
    maxMedia: c.maxMedia,
    threads: c.threads,
    maxVideoSeconds: c.maxVideoSeconds,
    videoProcessingSeconds: c.videoProcessingSeconds,
    firstComment: c.firstComment,
  };
}

/** The stored credentials of a connected sandbox channel; throws InvalidCredentialsError. */
export function parseStoredSandboxAccount(raw: unknown): StoredSandboxAccount {
  const c = parseWithSchema(StoredSandboxCredentials, raw, 'Sandbox credentials') as unknown as StoredSandboxAccount;
  return {
    name: c.name,
    maxCharacters: c.maxCharacters,
    maxMedia: c.maxMedia,
    threads: c.threads,
    maxVideoSeconds: c.maxVideoSeconds,
    videoProcessingSeconds: c.videoProcessingSeconds,
    firstComment: c.firstComment,
    accountId: c.accountId,
  };
}
