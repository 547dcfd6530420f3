import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { KEY_SCOPES, KeyScope } from '../scopes.format';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../api-key.format';
import { IsRfc3339 } from '../../common/validators';

export class CreateApiKeyDto {
  /** A label, e.g. "production" or "ci". */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  /**
   * Which environment the key is for (its prefix says so: `spk_live_`, `spk_dev_`, `spk_local_`).
   * Default: the server's APP_ENVIRONMENT, else production.
   */
  @ApiPropertyOptional({ enum: KEY_ENVIRONMENTS })
  @IsOptional()
  @IsIn(KEY_ENVIRONMENTS)
  environment?: KeyEnvironment;

  /** Optional expiry (RFC 3339 with a zone); the key is refused from then on. */
  @IsOptional()
  @IsRfc3339()
  expiresAt?: string;

  /**
   * What the key may do: any of the scopes (`posts:read`, `posts:write`, `posts:publish`, ...), or `*` for
   * every scope (the default). A key never creates a key with a scope it does not hold itself (403).
   */
  @ApiPropertyOptional({ enum: KEY_SCOPES, isArray: true, example: ['posts:read', 'posts:write', 'media:write'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(KEY_SCOPES.length)
  @IsIn(KEY_SCOPES, { each: true })
  scopes?: KeyScope[];
}
