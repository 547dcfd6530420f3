import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored Idempotency-Key responses become text: sealed JSON (`v1.<...>`, AES-256-GCM with the app key,
 * bound to the row) from now on, since they may hold a secret shown once. Rows already stored keep their
 * JSON as text; they replay as before, and the idempotency pruner seals them (docs/adr/0012). Down drops
 * the sealed rows (jsonb cannot hold them, and replays only matter for 24 h).
 */
export class IdempotencySealedResponses1795470000000 implements MigrationInterface {
  name = 'IdempotencySealedResponses1795470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE text USING "response_body"::text`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_keys" WHERE "response_body" ~ '^v[0-9]+\\.'`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" TYPE jsonb USING "response_body"::jsonb`,
    );
  }
}
