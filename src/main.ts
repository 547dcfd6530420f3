import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHttpApp } from './app.factory';
import { createLogger } from './common/logger';
import { runsHttp } from './app-role';
import { AppModule } from './app.module';
import { BootstrapKeyService } from './auth/bootstrap-key.service';
import { appConfig, databaseConfig, httpConfig } from './config';
import { prepareDatabase } from './database/database-bootstrap';
import { SetupLinkService } from './users/setup-link.service';

/** Signals that stop the process (Nest's shutdown hooks listen to them too). */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

/**
 * One log line when a stop signal arrives, as the drain (Nest's shutdown hooks, registered before)
 * begins: which signal, which role, and how long the drain may take. The first signal removes these
 * listeners, so a second signal, and the one Nest sends itself again after the drain, end the process
 * as before.
 */
function logShutdown(logger: Logger, role: string, drainTimeoutMs: number): void {
  const onSignal = (signal: NodeJS.Signals) => {
    for (const s of STOP_SIGNALS) process.removeListener(s, onSignal);
    logger.log({ msg: 'Shutting down', signal, role, drainTimeoutMs });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
}

async function bootstrap(): Promise<void> {
  // The first config read loads `.env` (src/config/env-file.ts): nothing below sees other values.
  const cfg = appConfig();
  const db = databaseConfig();
  const logger = new Logger('Main');
  Logger.overrideLogger(createLogger(cfg.logLevel, { format: cfg.logFormat }));
  await prepareDatabase(db.url, db.migrationsRun, db.timeouts.connectMs);

  if (runsHttp(cfg.role)) {
    const app = await createHttpApp(cfg.role); // with Nest's shutdown hooks
    logShutdown(logger, cfg.role, cfg.shutdownTimeoutMs);
    await app.init();
    await app.get(BootstrapKeyService).run();
    await app.get(SetupLinkService).run();
    await app.listen({ port: cfg.port, host: cfg.host });
    const scheme = httpConfig().tls ? 'https' : 'http';
    logger.log(
      `Listening on ${scheme}://${cfg.host}:${cfg.port}/api (role ${cfg.role}); docs at /api/docs, console at /console`,
    );
  } else {
    const app = await NestFactory.createApplicationContext(AppModule.forRole('worker'), {
      logger: createLogger(cfg.logLevel, { format: cfg.logFormat }),
    });
    app.enableShutdownHooks();
    logShutdown(logger, cfg.role, cfg.shutdownTimeoutMs);
    await app.init();
    logger.log('Worker started (queue processors only)');
  }
}

bootstrap().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  createLogger('info').fatal(`Start-up failed: ${message}`, 'Main');
  process.exit(1);
});
