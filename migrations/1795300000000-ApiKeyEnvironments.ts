import { MigrationInterface, QueryRunner } from 'typeorm';

/** Keys carry an environment (null for keys made before: they count as the server's own); longer tagged prefixes. */
export class ApiKeyEnvironments1795300000000 implements MigrationInterface {
  name = 'ApiKeyEnvironments1795300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "environment" character varying(16)`);
    await queryRunner.query(`ALTER TABLE "api_keys" ALTER COLUMN "prefix" TYPE character varying(24)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ALTER COLUMN "prefix" TYPE character varying(16)`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "environment"`);
  }
}
