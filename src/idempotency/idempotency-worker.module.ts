import { Module } from '@nestjs/common';
import { IdempotencyPruner } from './idempotency-pruner.service';
import { IdempotencyModule } from './idempotency.module';

/** Periodic pruning of expired keys: loaded only where the process runs workers. */
@Module({ imports: [IdempotencyModule], providers: [IdempotencyPruner], exports: [IdempotencyPruner] })
export class IdempotencyWorkerModule {}
