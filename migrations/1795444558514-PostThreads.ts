import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostThreads1795444558514 implements MigrationInterface {
  name = 'PostThreads1795444558514';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "post_target_parts" ("target_id" uuid NOT NULL, "index" smallint NOT NULL, "platform_post_id" character varying(512) NOT NULL, "url" character varying(2048) NOT NULL, "reply_ref" jsonb, "published_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_c27bf0fcf1a91e2275c09d0b0fc" PRIMARY KEY ("target_id", "index"))`,
    );
    await queryRunner.query(`ALTER TABLE "posts" ADD "thread" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `ALTER TABLE "post_target_parts" ADD CONSTRAINT "FK_710ee3fbe8f63599b31dbd2d8b5" FOREIGN KEY ("target_id") REFERENCES "post_targets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Channel limits now say whether the network takes threads; every network connected so far does.
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || '{"threads": true}'::jsonb WHERE NOT ("limits" ? 'threads')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "channels" SET "limits" = "limits" - 'threads'`);
    await queryRunner.query(`ALTER TABLE "post_target_parts" DROP CONSTRAINT "FK_710ee3fbe8f63599b31dbd2d8b5"`);
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "thread"`);
    await queryRunner.query(`DROP TABLE "post_target_parts"`);
  }
}
