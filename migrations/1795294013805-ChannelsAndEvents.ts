import { MigrationInterface, QueryRunner } from 'typeorm';

export class ChannelsAndEvents1795294013805 implements MigrationInterface {
  name = 'ChannelsAndEvents1795294013805';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "type" character varying(64) NOT NULL, "data" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "dispatched_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_events_undispatched" ON "events" ("dispatched_at") WHERE dispatched_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_events_workspace_type_created" ON "events" ("workspace_id", "type", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_events_workspace_created" ON "events" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "channels" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "provider" character varying(32) NOT NULL, "external_id" character varying(255) NOT NULL, "name" character varying(255) NOT NULL, "handle" character varying(255) NOT NULL, "avatar_url" character varying(2048), "profile_url" character varying(2048), "status" character varying(16) NOT NULL, "limits" jsonb NOT NULL, "credentials" text, "disconnect_reason" character varying(32), "connected_at" TIMESTAMP WITH TIME ZONE NOT NULL, "disconnected_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bc603823f3f741359c2339389f9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_channels_workspace_created" ON "channels" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_channels_account" ON "channels" ("workspace_id", "provider", "external_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "FK_a4a6e94b5357bba950eb90120fe" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "channels" ADD CONSTRAINT "FK_e996fff1751f5c3e8997c7e7d70" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" DROP CONSTRAINT "FK_e996fff1751f5c3e8997c7e7d70"`);
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "FK_a4a6e94b5357bba950eb90120fe"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_channels_account"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_channels_workspace_created"`);
    await queryRunner.query(`DROP TABLE "channels"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_events_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_events_workspace_type_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_events_undispatched"`);
    await queryRunner.query(`DROP TABLE "events"`);
  }
}
