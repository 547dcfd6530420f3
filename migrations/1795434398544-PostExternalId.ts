import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostExternalId1795434398544 implements MigrationInterface {
  name = 'PostExternalId1795434398544';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" ADD "external_id" character varying(255)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_posts_workspace_external_id" ON "posts" ("workspace_id", "external_id") WHERE external_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."UQ_posts_workspace_external_id"`);
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "external_id"`);
  }
}
