import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { IsRfc3339 } from '../../common/validators';
import {
  IsWorkspaceMetadata,
  WORKSPACE_METADATA_MAX_KEY_LENGTH,
  WORKSPACE_METADATA_MAX_KEYS,
  WORKSPACE_METADATA_MAX_VALUE_LENGTH,
  WORKSPACE_METADATA_SCHEMA,
} from './workspace-metadata.validator';

const METADATA_DESCRIPTION =
  `Your own strings about the workspace, returned as given: at most ${WORKSPACE_METADATA_MAX_KEYS} keys of ` +
  `1 to ${WORKSPACE_METADATA_MAX_KEY_LENGTH} characters, each value a string of at most ` +
  `${WORKSPACE_METADATA_MAX_VALUE_LENGTH} characters.`;

/** A new workspace of the calling key's organization. */
export class CreateWorkspaceDto {
  /** Unique in the organization (409 CONFLICT when taken). */
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Acme Bakery' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  /** Your own id for this workspace (say, your customer's id), unique in the organization (409 CONFLICT when taken). */
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'customer-4711' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  externalId?: string;

  @ApiPropertyOptional({ ...WORKSPACE_METADATA_SCHEMA, description: METADATA_DESCRIPTION })
  @IsOptional()
  @IsWorkspaceMetadata()
  metadata?: Record<string, string>;
}

/** Changes to a workspace; absent fields stay as they are. */
export class ChangeWorkspaceDto {
  /** Unique in the organization (409 CONFLICT when taken). */
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  /** Unique in the organization (409 CONFLICT when taken); null removes it. */
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 200 })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @IsString()
  @Length(1, 200)
  externalId?: string | null;

  @ApiPropertyOptional({
    ...WORKSPACE_METADATA_SCHEMA,
    description: `${METADATA_DESCRIPTION} Replaces the whole map.`,
  })
  @IsOptional()
  @IsWorkspaceMetadata()
  metadata?: Record<string, string>;
}

export class ListWorkspacesQueryDto extends PageQueryDto {
  /** Only the workspace with this `externalId`. */
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  externalId?: string;
}

/** The longest window a usage query covers. */
export const USAGE_MAX_DAYS = 366;
/** The window when `from` is not given: this many days before `to`. */
export const USAGE_DEFAULT_DAYS = 30;

export class UsageQueryDto {
  /**
   * Start of the window (inclusive). Default: 30 days before `to`. The window is at most 366 days and
   * `from` must be before `to`.
   */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsRfc3339()
  from?: string;

  /** End of the window (exclusive). Default: now. */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsRfc3339()
  to?: string;
}

/** One network's share of a usage window: targets published and failed on channels of this network. */
export interface NetworkUsage {
  published: number;
  failed: number;
}

/** What a workspace did in a window: what a platform bills its customers on. */
export class WorkspaceUsageDto {
  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;

  /** Start of the window (inclusive). */
  @ApiProperty({ format: 'date-time' })
  from!: string;

  /** End of the window (exclusive). */
  @ApiProperty({ format: 'date-time' })
  to!: string;

  /** Posts created in the window (drafts included). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  postsCreated!: number;

  /** Targets (a post on one channel) published in the window. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  targetsPublished!: number;

  /** Targets that failed in the window. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  targetsFailed!: number;

  /** The same counts per network (provider id), for the networks with any. */
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['published', 'failed'],
      properties: { published: { type: 'integer', minimum: 0 }, failed: { type: 'integer', minimum: 0 } },
    },
    example: { mastodon: { published: 12, failed: 1 } },
  })
  byNetwork!: Record<string, NetworkUsage>;

  /** Bytes the workspace's media hold in storage now (originals and converted copies), whatever the window. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  mediaBytes!: number;
}

/** `workspace.deleted`: a workspace of the organization was erased. */
export class WorkspaceDeletedDto {
  @ApiProperty({ format: 'uuid' })
  workspaceId!: string;
}
