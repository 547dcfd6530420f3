import { MigrationInterface, QueryRunner } from 'typeorm';

export class Analytics1795295887162 implements MigrationInterface {
  name = 'Analytics1795295887162';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "target_metrics" ("target_id" uuid NOT NULL, "post_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "published_at" TIMESTAMP WITH TIME ZONE NOT NULL, "likes" integer, "reposts" integer, "replies" integer, "quotes" integer, "impressions" integer, "raw" jsonb, "collected_at" TIMESTAMP WITH TIME ZONE, "next_collect_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a722e0eff7bcb06a0156db6f9db" PRIMARY KEY ("target_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_target_metrics_channel_published" ON "target_metrics" ("channel_id", "published_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_target_metrics_post_due" ON "target_metrics" ("post_id", "next_collect_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "analytics_snapshots" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "target_id" uuid NOT NULL, "post_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "collected_at" TIMESTAMP WITH TIME ZONE NOT NULL, "likes" integer, "reposts" integer, "replies" integer, "quotes" integer, "impressions" integer, "raw" jsonb NOT NULL, CONSTRAINT "PK_72ddc015c269977322f808a19a7" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_analytics_snapshots_channel_collected" ON "analytics_snapshots" ("channel_id", "collected_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_analytics_snapshots_post_collected" ON "analytics_snapshots" ("post_id", "collected_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_analytics_snapshots_target_collected" ON "analytics_snapshots" ("target_id", "collected_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "target_metrics" ADD CONSTRAINT "FK_a722e0eff7bcb06a0156db6f9db" FOREIGN KEY ("target_id") REFERENCES "post_targets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "analytics_snapshots" ADD CONSTRAINT "FK_88faae45d61dd4ed27990e89839" FOREIGN KEY ("target_id") REFERENCES "post_targets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "analytics_snapshots" DROP CONSTRAINT "FK_88faae45d61dd4ed27990e89839"`);
    await queryRunner.query(`ALTER TABLE "target_metrics" DROP CONSTRAINT "FK_a722e0eff7bcb06a0156db6f9db"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_analytics_snapshots_target_collected"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_analytics_snapshots_post_collected"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_analytics_snapshots_channel_collected"`);
    await queryRunner.query(`DROP TABLE "analytics_snapshots"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_target_metrics_post_due"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_target_metrics_channel_published"`);
    await queryRunner.query(`DROP TABLE "target_metrics"`);
  }
}
