import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Deletes expired idempotency keys every 10 minutes, in every worker (a plain DELETE of expired
 * rows is safe to run twice). Lookups already ignore expired rows, so this only reclaims space.
 * It also seals the responses of rows stored in plain JSON before responses were sealed (at start,
 * then on each run: after an upgrade there are such rows for a day at most).
 */
@Injectable()
export class IdempotencyPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPruner');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly idempotency: IdempotencyService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), PRUNE_EVERY_MS);
    this.timer.unref();
    void this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = (async () => {
      let total = 0;
      for (let n = await this.idempotency.prune(); n > 0; n = await this.idempotency.prune()) total += n;
      if (total > 0) this.logger.log(`Deleted ${total} expired idempotency key(s)`);
      let sealed = 0;
      for (let n = await this.idempotency.sealPlainResponses(); n > 0; n = await this.idempotency.sealPlainResponses())
        sealed += n;
      if (sealed > 0) this.logger.log(`Sealed ${sealed} idempotency response(s) stored in plain text`);
    })()
      .catch((err: Error) => this.logger.warn(`Pruning idempotency keys failed: ${err.message}`))
      .finally(() => (this.running = undefined));
    await this.running;
  }
}
