import { writeFile } from 'node:fs/promises';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';
import { ProcessTicker } from '../scheduling/process-ticker';
import { HealthService } from './health.service';

/**
 * A worker has no HTTP port to probe, so it touches a file while its database and Redis answer;
 * `node dist/src/healthcheck.js` (the container healthcheck) reads the file's age. Per process by
 * nature (each worker proves it is alive), hence a ProcessTicker, not a periodic job.
 */
@Injectable()
export class WorkerHeartbeatService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Heartbeat');
  private readonly ticker: ProcessTicker;

  constructor(
    private readonly health: HealthService,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {
    this.ticker = new ProcessTicker({
      name: 'heartbeat',
      everyMs: app.heartbeatSeconds * 1000,
      run: () => this.beat(),
    });
  }

  onApplicationBootstrap(): void {
    this.ticker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.ticker.stop();
  }

  private async beat(): Promise<void> {
    const result = await this.health.check();
    if (result.status !== 'ok') return;
    await writeFile(this.app.heartbeatFile, new Date().toISOString()).catch((err: Error) =>
      this.logger.warn({ msg: 'Cannot write the heartbeat file', file: this.app.heartbeatFile, err: err.message }),
    );
  }
}
