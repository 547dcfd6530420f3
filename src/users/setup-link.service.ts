import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ApiKeysService } from '../auth/api-keys.service';
import { consoleConfig } from '../config';
import { Transactions } from '../database/transactions';
import { UsersService } from './users.service';

const SETUP_LOCK = 727_100_003;

/**
 * While no user exists, every start of the HTTP process prints a one-time link that creates the
 * first owner of workspace `default` (like the bootstrap key). Off with CONSOLE_SETUP_LINK=false.
 */
@Injectable()
export class SetupLinkService {
  private readonly logger = new Logger('Setup');

  constructor(
    @Inject(consoleConfig.KEY) private readonly cfg: ConfigType<typeof consoleConfig>,
    private readonly users: UsersService,
    private readonly workspaces: ApiKeysService,
    private readonly transactions: Transactions,
  ) {}

  /** Returns the printed link, or null when users exist or the feature is off. */
  async run(): Promise<string | null> {
    if (!this.cfg.setupLink) return null;
    return this.transactions.withSessionLock(SETUP_LOCK, async () => {
      if ((await this.users.countUsers()) > 0) return null;
      const workspace = await this.workspaces.resolveWorkspace('default', true);
      const { url } = await this.users.createLink('setup', workspace.id, null, 'owner');
      // Deliberately printed: the only way to create the first console user without the CLI.
      this.logger.warn(`No console user yet. Open this one-time link to create the first owner of "default": ${url}`);
      return url;
    });
  }
}
