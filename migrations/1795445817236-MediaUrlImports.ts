import { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaUrlImports1795445817236 implements MigrationInterface {
  name = 'MediaUrlImports1795445817236';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" ADD "source_url" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "media" ADD "import_attempts" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "media" ADD "import_claimed_until" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "media" ADD "error_code" character varying(32)`);
    await queryRunner.query(`ALTER TABLE "media" ADD "error_message" text`);
    await queryRunner.query(
      `CREATE INDEX "IDX_media_processing" ON "media" ("import_claimed_until") WHERE status = 'processing'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_media_processing"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "error_message"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "error_code"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "import_claimed_until"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "import_attempts"`);
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "source_url"`);
  }
}
