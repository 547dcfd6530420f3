import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsRfc3339 } from '../../common/validators';

export class CreateApiKeyDto {
  /** A label, e.g. "production" or "ci". */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name!: string;

  /** Optional expiry (RFC 3339 with a zone); the key is refused from then on. */
  @IsOptional()
  @IsRfc3339()
  expiresAt?: string;
}
