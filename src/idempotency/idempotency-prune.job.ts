import { Injectable, OnModuleInit } from '@nestjs/common';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { IdempotencyService } from './idempotency.service';

/** Name of the periodic job (PeriodicJobs) that deletes expired idempotency keys. */
export const IDEMPOTENCY_PRUNE_JOB = 'idempotency.prune';
const PRUNE_EVERY_MS = 10 * 60_000;

export interface IdempotencyPruneStats {
  deleted: number;
  sealed: number;
}

/**
 * Deletes expired idempotency keys every 10 minutes as the periodic job `idempotency.prune` (one
 * process at a time; the first run at start-up). Lookups already ignore expired rows, so this only
 * reclaims space. It also seals the responses of rows stored in plain JSON before responses were
 * sealed (after an upgrade there are such rows for a day at most).
 */
@Injectable()
export class IdempotencyPruneJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly idempotency: IdempotencyService,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every<IdempotencyPruneStats>({
      name: IDEMPOTENCY_PRUNE_JOB,
      everyMs: PRUNE_EVERY_MS,
      run: (signal) => this.prune(() => signal.aborted),
      describe: (s) => (s.deleted + s.sealed > 0 ? { ...s } : undefined),
    });
  }

  /** Deletes expired keys, then seals plain responses, in batches until none is left or `stop()` says so. */
  async prune(stop: () => boolean = () => false): Promise<IdempotencyPruneStats> {
    const drain = async (batch: () => Promise<number>): Promise<number> => {
      let total = 0;
      let n: number;
      do {
        n = await batch();
        total += n;
      } while (n > 0 && !stop());
      return total;
    };
    const deleted = await drain(() => this.idempotency.prune());
    const sealed = await drain(() => this.idempotency.sealPlainResponses());
    return { deleted, sealed };
  }
}
