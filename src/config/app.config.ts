import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { SecretsFile, openSecretsFile } from './secrets-file';
import { toBool, validateEnv } from './validate-env';

/**
 * The key the service once used outside production when APP_ENCRYPTION_KEY was unset: public, so never
 * used to seal again, nor accepted as APP_ENCRYPTION_KEY; it still opens what it sealed in a development
 * database (outside production only), see docs/adr/0025-secrets-on-first-start.md.
 */
export const LEGACY_DEVELOPMENT_ENCRYPTION_KEY = '0'.repeat(64);

export class AppEnv {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: string = 'development';

  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  @IsIn(['all', 'api', 'worker'])
  APP_ROLE: string = 'all';

  /**
   * Public address of this service, as the world reaches it: OAuth callbacks are
   * `{PUBLIC_BASE_URL}/api/oauth/{provider}/callback`, signed media URLs
   * `{PUBLIC_BASE_URL}/api/media/{id}/content?...`, and printed console links
   * `{PUBLIC_BASE_URL}/console/...` (unless CONSOLE_URL is set). Default http://localhost:$PORT.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL?: string = undefined;

  /**
   * Which environment this server is (production, development, local). When set, API keys made
   * for another environment are refused; keys made before environments existed count as this one.
   */
  @IsOptional()
  @IsIn(['production', 'development', 'local'])
  APP_ENVIRONMENT?: string = undefined;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @IsIn(['auto', 'json', 'pretty'])
  LOG_FORMAT: string = 'auto';

  /**
   * Seals channel credentials, webhook secrets and stored Idempotency-Key answers. Required in
   * production; otherwise, when unset, a random key is generated into APP_SECRETS_FILE on first start.
   */
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hexadecimal characters (32 bytes)' })
  APP_ENCRYPTION_KEY?: string = undefined;

  /**
   * Outside production, where the keys the service was not given (APP_ENCRYPTION_KEY,
   * MEDIA_URL_SIGNING_KEYS) are generated on first start and read on later ones.
   */
  @IsString()
  APP_SECRETS_FILE: string = './data/secrets.env';

  @Transform(toBool)
  @IsBoolean()
  BOOTSTRAP_KEY: boolean = true;

  @Transform(toBool)
  @IsBoolean()
  DOCS_PUBLIC: boolean = true;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  OUTBOUND_ALLOW_PRIVATE?: boolean = undefined;

  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 1024 * 1024;

  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS: number = 10_000;

  @IsString()
  WORKER_HEARTBEAT_FILE: string = join(tmpdir(), 'social-publishing-worker.heartbeat');

  @IsInt()
  @Min(1)
  WORKER_HEARTBEAT_SECONDS: number = 10;
}

/** PUBLIC_BASE_URL without a trailing slash; default `http://localhost:$PORT`. */
export function publicBaseUrlOf(env: AppEnv): string {
  return (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
}

export const appConfig = registerAs('app', () => {
  const env = validateEnv(AppEnv);
  const production = env.NODE_ENV === 'production';
  if (production && !env.APP_ENCRYPTION_KEY) {
    throw new Error('Invalid configuration: APP_ENCRYPTION_KEY is required when NODE_ENV=production');
  }
  if (env.APP_ENCRYPTION_KEY === LEGACY_DEVELOPMENT_ENCRYPTION_KEY) {
    throw new Error(
      'Invalid configuration: APP_ENCRYPTION_KEY is all zeros, a publicly known key; use `openssl rand -hex 32`',
    );
  }
  const secretsFile: SecretsFile | null = env.APP_ENCRYPTION_KEY ? null : openSecretsFile(env.APP_SECRETS_FILE);
  const encryptionKeyHex = env.APP_ENCRYPTION_KEY ?? secretsFile!.values.APP_ENCRYPTION_KEY;
  return {
    nodeEnv: env.NODE_ENV,
    production,
    port: env.PORT,
    host: env.HOST,
    role: env.APP_ROLE as 'all' | 'api' | 'worker',
    /** PUBLIC_BASE_URL without a trailing slash. */
    publicBaseUrl: publicBaseUrlOf(env),
    /** null: keys of every environment are accepted. */
    environment: (env.APP_ENVIRONMENT ?? null) as 'production' | 'development' | 'local' | null,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT as 'auto' | 'json' | 'pretty',
    encryptionKey: Buffer.from(encryptionKeyHex, 'hex'),
    /** Keys that only open (never seal): the former all-zero development key, outside production. */
    openOnlyEncryptionKeys: production ? [] : [Buffer.from(LEGACY_DEVELOPMENT_ENCRYPTION_KEY, 'hex')],
    /** The file APP_ENCRYPTION_KEY came from (generated on first start), or null when it was given. */
    encryptionKeyFile: secretsFile,
    bootstrapKey: env.BOOTSTRAP_KEY,
    docsPublic: env.DOCS_PUBLIC,
    outboundAllowPrivate: env.OUTBOUND_ALLOW_PRIVATE ?? !production,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    heartbeatFile: env.WORKER_HEARTBEAT_FILE,
    heartbeatSeconds: env.WORKER_HEARTBEAT_SECONDS,
  };
});
export type AppConfig = ReturnType<typeof appConfig>;
