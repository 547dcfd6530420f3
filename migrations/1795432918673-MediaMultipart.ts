import { MigrationInterface, QueryRunner } from 'typeorm';

/** S3 multipart bookkeeping beside received_chunks: the upload id and each part's ETag. */
export class MediaMultipart1795432918673 implements MigrationInterface {
  name = 'MediaMultipart1795432918673';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" ADD "multipart_upload_id" character varying(1024)`);
    await queryRunner.query(`ALTER TABLE "media" ADD "part_etags" jsonb NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "part_etags"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "multipart_upload_id"`);
  }
}
