import { analyticsConfig } from './analytics.config';
import { appConfig } from './app.config';
import { databaseConfig } from './database.config';
import { mediaConfig } from './media.config';
import { publishingConfig } from './publishing.config';
import { rateLimitConfig } from './rate-limit.config';
import { redisConfig } from './redis.config';
import { webhooksConfig } from './webhooks.config';

export * from './app.config';
export * from './database.config';
export * from './publishing.config';
export * from './rate-limit.config';
export * from './redis.config';

/** Every config namespace; feature namespaces are added here as features arrive. */
export const allConfigs = [
  appConfig,
  databaseConfig,
  redisConfig,
  rateLimitConfig,
  publishingConfig,
  mediaConfig,
  webhooksConfig,
  analyticsConfig,
];
