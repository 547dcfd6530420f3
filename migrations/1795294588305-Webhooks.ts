import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795294588305 implements MigrationInterface {
  name = 'Webhooks1795294588305';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhooks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "url" character varying(2048) NOT NULL, "events" character varying(64) array NOT NULL, "description" character varying(500), "enabled" boolean NOT NULL DEFAULT true, "disabled_reason" character varying(16), "secret" text NOT NULL, "previous_secret" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "secret_rotated_at" TIMESTAMP WITH TIME ZONE, "failing_since" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhooks_workspace_created" ON "webhooks" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "webhook_id" uuid NOT NULL, "event_id" uuid NOT NULL, "event_type" character varying(64) NOT NULL, "payload" jsonb, "status" character varying(16) NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_webhook_deliveries_webhook_event" ON "webhook_deliveries" ("webhook_id", "event_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_delivery_attempts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "webhook_id" uuid NOT NULL, "delivery_id" uuid NOT NULL, "event_id" uuid NOT NULL, "event_type" character varying(64) NOT NULL, "attempt" integer NOT NULL, "status_code" integer, "duration_ms" integer NOT NULL, "error" character varying(500), "succeeded" boolean NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), CONSTRAINT "PK_59ef9124585b56c18b98548a0c6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_webhook_delivery_attempts_delivery_attempt" ON "webhook_delivery_attempts" ("delivery_id", "attempt") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_delivery_attempts_webhook_created" ON "webhook_delivery_attempts" ("webhook_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "webhooks" ADD CONSTRAINT "FK_3ed8fd5f3708d4acac990ad2369" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_e3a7eb0d16fa3f0ee88713420a0" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "FK_872c9832bf17be367845faddcc1" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "FK_725c47333f472fdc303e23fc827" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "FK_647916c401c0c275df5f00c148f" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery_attempts" DROP CONSTRAINT "FK_647916c401c0c275df5f00c148f"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery_attempts" DROP CONSTRAINT "FK_725c47333f472fdc303e23fc827"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery_attempts" DROP CONSTRAINT "FK_872c9832bf17be367845faddcc1"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_e3a7eb0d16fa3f0ee88713420a0"`);
    await queryRunner.query(`ALTER TABLE "webhooks" DROP CONSTRAINT "FK_3ed8fd5f3708d4acac990ad2369"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_webhook_delivery_attempts_webhook_created"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_webhook_delivery_attempts_delivery_attempt"`);
    await queryRunner.query(`DROP TABLE "webhook_delivery_attempts"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_webhook_deliveries_webhook_event"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_webhook_deliveries_due"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_webhooks_workspace_created"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}
