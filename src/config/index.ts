import { ConfigModule } from '@nestjs/config';
import { analyticsConfig } from './analytics.config';
import { appConfig } from './app.config';
import { consoleConfig } from './console.config';
import { databaseConfig } from './database.config';
import { httpConfig } from './http.config';
import { mediaConfig } from './media.config';
import { mcpOAuthConfig } from './mcp-oauth.config';
import { metricsConfig } from './metrics.config';
import { retentionConfig } from './retention.config';
import { oauthConfig } from './oauth.config';
import { publishingConfig } from './publishing.config';
import { rateLimitConfig } from './rate-limit.config';
import { redisConfig } from './redis.config';
import { videoConfig } from './video.config';
import { webhooksConfig } from './webhooks.config';

export * from './app.config';
export * from './console.config';
export * from './database.config';
export * from './http.config';
export * from './mcp-oauth.config';
export * from './oauth.config';
export * from './publishing.config';
export * from './rate-limit.config';
export * from './redis.config';
export * from './settings';

/** Every config namespace; feature namespaces are added here as features arrive. */
export const allConfigs = [
  appConfig,
  httpConfig,
  databaseConfig,
  redisConfig,
  rateLimitConfig,
  publishingConfig,
  mediaConfig,
  videoConfig,
  webhooksConfig,
  analyticsConfig,
  metricsConfig,
  retentionConfig,
  consoleConfig,
  oauthConfig,
  mcpOAuthConfig,
];

/**
 * The config module of every Nest context (app, worker, CLI). `.env` is already in `process.env`
 * (loaded once by `validateEnv`), so the module does not read the file a second time.
 */
export function configModule() {
  return ConfigModule.forRoot({ isGlobal: true, cache: true, ignoreEnvFile: true, load: allConfigs });
}
