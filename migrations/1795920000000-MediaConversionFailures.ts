import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Video conversions for networks that failed, one row per item and variant: a publisher asking for
 * the same copy again fails its target at once (VIDEO_PROCESSING_FAILED) rather than the conversion
 * being queued again at every poll until the processing wait runs out.
 */
export class MediaConversionFailures1795920000000 implements MigrationInterface {
  name = 'MediaConversionFailures1795920000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media_conversion_failures" ("media_id" uuid NOT NULL, "variant" character varying(16) NOT NULL, "reason" character varying(32) NOT NULL, "message" text NOT NULL, "failed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_63c499f5a0c4d153cabde379cac" PRIMARY KEY ("media_id", "variant"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_conversion_failures" ADD CONSTRAINT "FK_4f9fe84d7b3d82ee4f9c8507231" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_conversion_failures" DROP CONSTRAINT "FK_4f9fe84d7b3d82ee4f9c8507231"`);
    await queryRunner.query(`DROP TABLE "media_conversion_failures"`);
  }
}
