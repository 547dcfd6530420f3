import { MigrationInterface, QueryRunner } from 'typeorm';

export class SandboxTimeline1795434354242 implements MigrationInterface {
  name = 'SandboxTimeline1795434354242';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sandbox_posts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "account_id" uuid NOT NULL, "idempotency_key" character varying(255) NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "content" text NOT NULL DEFAULT '', "media" jsonb NOT NULL DEFAULT '[]', "in_reply_to" uuid, "published_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9567abeead76a536ecdacee19ed" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_sandbox_posts_timeline" ON "sandbox_posts" ("account_id", "published_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_sandbox_posts_account_key" ON "sandbox_posts" ("account_id", "idempotency_key") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_sandbox_posts_account_key"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_sandbox_posts_timeline"`);
    await queryRunner.query(`DROP TABLE "sandbox_posts"`);
  }
}
