import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';
import { Transactions } from '../database/transactions';
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
    private readonly transactions: Transactions,
  ) {}

  async run(): Promise<void> {
    if (!this.app.bootstrapKey) return;
    await this.transactions.withSessionLock(BOOTSTRAP_LOCK, async () => {
      if ((await this.keys.countWorkspaces()) > 0) return;
      const workspace = await this.keys.resolveWorkspace('default', true);
      const { key } = await this.keys.create(workspace.id, { name: 'bootstrap' });
      // Deliberately printed once: this is the only way to obtain the first key without the CLI.
      this.logger.warn(`Created workspace "default" and its first API key (shown once, store it now): ${key}`);
    });
  }
}
