import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { appConfig } from '../config';
import { ApiKeysService } from './api-keys.service';

const BOOTSTRAP_LOCK = 727_100_002;

/**
 * First start on an empty database: creates workspace `default` and one key, printed once in
 * the log so a newcomer can call the API at once. Off with BOOTSTRAP_KEY=false. Called by the
 * HTTP process at start (not by the worker or the CLI).
 */
@Injectable()
export class BootstrapKeyService {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
    private readonly keys: ApiKeysService,
    private readonly dataSource: DataSource,
  ) {}

  async run(): Promise<void> {
    if (!this.app.bootstrapKey) return;
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
      if ((await this.keys.countWorkspaces()) > 0) return;
      const workspace = await this.keys.resolveWorkspace('default', true);
      const { key } = await this.keys.create(workspace.id, { name: 'bootstrap' });
      // Deliberately printed once: this is the only way to obtain the first key without the CLI.
      this.logger.warn(`Created workspace "default" and its first API key (shown once, store it now): ${key}`);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [BOOTSTRAP_LOCK]).catch(() => undefined);
      await runner.release();
    }
  }
}
