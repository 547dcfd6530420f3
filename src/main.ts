import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHttpApp } from './app.factory';
import { createLogger } from './common/logger';
import { runsHttp } from './app-role';
import { AppModule } from './app.module';
import { BootstrapKeyService } from './auth/bootstrap-key.service';
import { appConfig, databaseConfig } from './config';
import { prepareDatabase } from './database/database-bootstrap';

async function bootstrap(): Promise<void> {
  const cfg = appConfig();
  const db = databaseConfig();
  const logger = new Logger('Main');
  Logger.overrideLogger(createLogger(cfg.logLevel));
  await prepareDatabase(db.url, db.migrationsRun);

  if (runsHttp(cfg.role)) {
    const app = await createHttpApp(cfg.role);
    await app.init();
    await app.get(BootstrapKeyService).run();
    await app.listen({ port: cfg.port, host: cfg.host });
    logger.log(`Listening on http://${cfg.host}:${cfg.port}/api (role ${cfg.role}); docs at /api/docs`);
  } else {
    const app = await NestFactory.createApplicationContext(AppModule.forRole('worker'), {
      logger: createLogger(cfg.logLevel),
    });
    app.enableShutdownHooks();
    await app.init();
    logger.log('Worker started (queue processors only)');
  }
}

bootstrap().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  new Logger('Main').fatal(`Start-up failed: ${message}`);
  process.exit(1);
});
