import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostTargetOverrides1795458062710 implements MigrationInterface {
  name = 'PostTargetOverrides1795458062710';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "content_override" text`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "media_ids_override" uuid array`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "media_ids_override"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "content_override"`);
  }
}
