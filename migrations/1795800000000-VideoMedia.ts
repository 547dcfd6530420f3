import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Videos probed at finalize (duration, frame rate, codecs, bitrate, index position) and variants named
 * rather than keyed by type: a video's poster (`poster`, image/jpeg) and its converted copies
 * (video/mp4) sit beside image conversions. Existing variants take their type's name (`jpeg`, ...).
 */
export class VideoMedia1795800000000 implements MigrationInterface {
  name = 'VideoMedia1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "media" ADD "duration_ms" integer, ADD "frame_rate" double precision, ADD "video_codec" character varying(32), ADD "audio_codec" character varying(32), ADD "bitrate" bigint, ADD "faststart" boolean, ADD "pixel_format" character varying(32)`,
    );
    await queryRunner.query(`ALTER TABLE "media_variants" ADD "variant" character varying(16)`);
    await queryRunner.query(
      `UPDATE "media_variants" SET "variant" = CASE "mime_type" WHEN 'image/jpeg' THEN 'jpeg' WHEN 'image/png' THEN 'png' WHEN 'image/webp' THEN 'webp' ELSE left(regexp_replace("mime_type", '[^a-z0-9]', '', 'g'), 16) END`,
    );
    await queryRunner.query(`ALTER TABLE "media_variants" ALTER COLUMN "variant" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "media_variants" ADD "duration_ms" integer`);
    await queryRunner.query(`ALTER TABLE "media_variants" DROP CONSTRAINT "PK_26856de129cde7c77ca943fe6bd"`);
    await queryRunner.query(
      `ALTER TABLE "media_variants" ADD CONSTRAINT "PK_536ab3eca9452257c174321bc4f" PRIMARY KEY ("media_id", "variant")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "media_variants" WHERE "variant" NOT IN ('jpeg', 'png', 'webp')`);
    await queryRunner.query(`ALTER TABLE "media_variants" DROP CONSTRAINT "PK_536ab3eca9452257c174321bc4f"`);
    await queryRunner.query(
      `ALTER TABLE "media_variants" ADD CONSTRAINT "PK_26856de129cde7c77ca943fe6bd" PRIMARY KEY ("media_id", "mime_type")`,
    );
    await queryRunner.query(`ALTER TABLE "media_variants" DROP COLUMN "duration_ms"`);
    await queryRunner.query(`ALTER TABLE "media_variants" DROP COLUMN "variant"`);
    await queryRunner.query(
      `ALTER TABLE "media" DROP COLUMN "pixel_format", DROP COLUMN "faststart", DROP COLUMN "bitrate", DROP COLUMN "audio_codec", DROP COLUMN "video_codec", DROP COLUMN "frame_rate", DROP COLUMN "duration_ms"`,
    );
  }
}
