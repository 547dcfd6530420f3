import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Key scopes and the approval step (docs/adr/0034): every existing key keeps every scope (`{*}`), every
 * workspace publishes without approval, as before.
 */
export class KeyScopesAndApproval1795900000000 implements MigrationInterface {
  name = 'KeyScopesAndApproval1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "scopes" character varying(32) array NOT NULL DEFAULT '{*}'`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "approval_required" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "posts" ADD "approval" jsonb`);
    await queryRunner.query(`ALTER TABLE "posts" ADD "rejection" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "rejection"`);
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "approval"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "approval_required"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "scopes"`);
  }
}
