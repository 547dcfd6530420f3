import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who asked for a post (`createdBy`): the API key, OAuth client or console user whose request created
 * it, with the name it had then. Null for posts made before it was recorded.
 */
export class PostCreatedBy1796300000000 implements MigrationInterface {
  name = 'PostCreatedBy1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" ADD "created_by" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "created_by"`);
  }
}
