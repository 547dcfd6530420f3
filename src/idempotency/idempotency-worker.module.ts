import { Module } from '@nestjs/common';
import { IdempotencyPruneJob } from './idempotency-prune.job';
import { IdempotencyModule } from './idempotency.module';

/** Periodic pruning of expired keys: loaded only where the process runs workers. */
@Module({ imports: [IdempotencyModule], providers: [IdempotencyPruneJob], exports: [IdempotencyPruneJob] })
export class IdempotencyWorkerModule {}
