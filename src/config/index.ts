import { appConfig } from './app.config';
import { databaseConfig } from './database.config';
import { rateLimitConfig } from './rate-limit.config';
import { redisConfig } from './redis.config';

export * from './app.config';
export * from './database.config';
export * from './rate-limit.config';
export * from './redis.config';

/** Every config namespace; feature namespaces are added here as features arrive. */
export const allConfigs = [appConfig, databaseConfig, redisConfig, rateLimitConfig];
