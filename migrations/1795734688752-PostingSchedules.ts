import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostingSchedules1795734688752 implements MigrationInterface {
  name = 'PostingSchedules1795734688752';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "post_queue_slots" ("channel_id" uuid NOT NULL, "slot_at" TIMESTAMP WITH TIME ZONE NOT NULL, "post_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, CONSTRAINT "PK_77e926352f1939101a51f4d1936" PRIMARY KEY ("channel_id", "slot_at"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_post_queue_slots_post" ON "post_queue_slots" ("post_id") `);
    await queryRunner.query(
      `CREATE TABLE "posting_schedules" ("channel_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "timezone" character varying(64) NOT NULL, "slots" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2f61cb129e27290c3a9ea32dcf5" PRIMARY KEY ("channel_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "posts" ADD "queued" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `ALTER TABLE "post_queue_slots" ADD CONSTRAINT "FK_ae0f57a547159b35ffd64b9dc96" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_queue_slots" ADD CONSTRAINT "FK_fa58a707e238e8824d651bc1c66" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_queue_slots" ADD CONSTRAINT "FK_6972e28989294db3ce061c3171c" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "posting_schedules" ADD CONSTRAINT "FK_2f61cb129e27290c3a9ea32dcf5" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "posting_schedules" ADD CONSTRAINT "FK_ae866c0db793b1bd3ee8dd1f194" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posting_schedules" DROP CONSTRAINT "FK_ae866c0db793b1bd3ee8dd1f194"`);
    await queryRunner.query(`ALTER TABLE "posting_schedules" DROP CONSTRAINT "FK_2f61cb129e27290c3a9ea32dcf5"`);
    await queryRunner.query(`ALTER TABLE "post_queue_slots" DROP CONSTRAINT "FK_6972e28989294db3ce061c3171c"`);
    await queryRunner.query(`ALTER TABLE "post_queue_slots" DROP CONSTRAINT "FK_fa58a707e238e8824d651bc1c66"`);
    await queryRunner.query(`ALTER TABLE "post_queue_slots" DROP CONSTRAINT "FK_ae0f57a547159b35ffd64b9dc96"`);
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "queued"`);
    await queryRunner.query(`DROP TABLE "posting_schedules"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_post_queue_slots_post"`);
    await queryRunner.query(`DROP TABLE "post_queue_slots"`);
  }
}
