import { ApiProperty } from '@nestjs/swagger';
import { ApiKey } from '../api-key.entity';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../api-key.format';
import { KEY_SCOPES, KeyScope } from '../scopes.format';

/** An API key as listed: never the secret. */
export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Label given at creation. */
  name!: string;

  /** First characters of the key, to recognise it. */
  @ApiProperty({ example: 'spk_live_3fK9aZ0q' })
  prefix!: string;

  /**
   * The environment the key is for; a server started with APP_ENVIRONMENT refuses keys of another
   * one. null for keys made before environments existed (they count as the server's own).
   */
  @ApiProperty({ enum: KEY_ENVIRONMENTS, nullable: true, type: String })
  environment!: KeyEnvironment | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  /** Last authenticated use (updated at most once a minute). */
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  lastUsedAt!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expiresAt!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt!: string | null;

  /** What the key may do; `["*"]` is every scope (keys made before scopes have it). */
  @ApiProperty({ enum: KEY_SCOPES, isArray: true, example: ['*'] })
  scopes!: KeyScope[];

  /** Requests per minute allowed for this key. */
  rateLimitPerMinute!: number;

  /** Burst size for this key. */
  rateLimitBurst!: number;

  static from(k: ApiKey, defaults: { perMinute: number; burst: number }): ApiKeyDto {
    return {
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      environment: k.environment,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      expiresAt: k.expiresAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
      scopes: k.scopes as KeyScope[],
      rateLimitPerMinute: k.rateLimitPerMinute ?? defaults.perMinute,
      rateLimitBurst: k.rateLimitBurst ?? defaults.burst,
    };
  }
}

/** A newly created key: the only response that carries the secret. */
export class CreatedApiKeyDto extends ApiKeyDto {
  /** The full key. Shown once: store it now. */
  @ApiProperty({ example: 'spk_live_3fK9aZ0qLxP2mN7vB1cD4eF6gH8jK0lM2nP4' })
  key!: string;
}
