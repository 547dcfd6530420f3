import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { runInRequestTransaction } from './request-transaction';

/**
 * How services delimit their work on the database without running SQL themselves (every statement
 * lives in a module's `*.store.ts`, docs/adr/0010): a transaction whose EntityManager they hand to the
 * stores, the request transaction of a keyed request, or a session advisory lock held around a step.
 */
@Injectable()
export class Transactions {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `fn` in one transaction (a savepoint inside a request transaction); commits when it resolves. */
  run<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(fn);
  }

  /** Runs `fn` in the request transaction that every query of its async context joins (request-transaction.ts). */
  runForRequest<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return runInRequestTransaction(this.dataSource, fn);
  }

  /**
   * Runs `fn` while holding the session advisory lock `key` on a connection of its own (waiting for it):
   * one process at a time does a start-up step such as creating the first key.
   */
  async withSessionLock<T>(key: number, fn: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [key]);
      return await fn();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
      await runner.release();
    }
  }

  /** Answers when the database runs a statement (health checks); throws otherwise. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
