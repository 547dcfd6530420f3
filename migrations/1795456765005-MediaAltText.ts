import { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaAltText1795456765005 implements MigrationInterface {
  name = 'MediaAltText1795456765005';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" ADD "alt_text" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" DROP COLUMN "alt_text"`);
  }
}
