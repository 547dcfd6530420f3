import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Video conversions asked for and not finished, one row per item and variant (docs/adr/0050): a retry,
 * a poll or a job delivered twice finds the conversion instead of starting another ffmpeg, and the run
 * stops once no publication waits for it any more.
 */
export class MediaVideoConversions1795970000000 implements MigrationInterface {
  name = 'MediaVideoConversions1795970000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media_video_conversions" ("media_id" uuid NOT NULL, "variant" character varying(16) NOT NULL, "wait_until" TIMESTAMP WITH TIME ZONE NOT NULL, "waiters" text array NOT NULL DEFAULT '{}', "runner" character varying(32), "heartbeat_at" TIMESTAMP WITH TIME ZONE, "asked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dafbffe16e5a3126cf6a52c4556" PRIMARY KEY ("media_id", "variant"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_video_conversions" ADD CONSTRAINT "FK_f53416b489ab977b87e47b3932e" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_video_conversions" DROP CONSTRAINT "FK_f53416b489ab977b87e47b3932e"`);
    await queryRunner.query(`DROP TABLE "media_video_conversions"`);
  }
}
