import { MigrationInterface, QueryRunner } from 'typeorm';

export class Idempotency1795433762336 implements MigrationInterface {
  name = 'Idempotency1795433762336';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("api_key_id" uuid NOT NULL, "key" character varying(255) NOT NULL, "request_hash" character(64) NOT NULL, "response_status" integer NOT NULL, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_913ded668c974d019eb0196e639" PRIMARY KEY ("api_key_id", "key"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_idempotency_keys_expires_at"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
