import { MigrationInterface, QueryRunner } from 'typeorm';

/** A target's network options (`targets[i].options`), and the options a sandbox post was published with. */
export class NetworkOptions1795740000000 implements MigrationInterface {
  name = 'NetworkOptions1795740000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "options" jsonb`);
    await queryRunner.query(`ALTER TABLE "sandbox_posts" ADD "options" jsonb NOT NULL DEFAULT '{}'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sandbox_posts" DROP COLUMN "options"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "options"`);
  }
}
