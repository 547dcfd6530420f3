import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * First comments (docs/adr/0035): the post's `firstComment`, and on each target the comment it
 * publishes with its own checkpoint (status, platform id, url, error, attempts, due time, claim) and
 * what the network needs to reply to the post (Bluesky: its CID). Channels connected before learn
 * whether their network takes one.
 */
export class FirstComments1795750000000 implements MigrationInterface {
  name = 'FirstComments1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" ADD "first_comment" text`);
    await queryRunner.query(
      `ALTER TABLE "post_targets"
         ADD "reply_ref" jsonb,
         ADD "first_comment" text,
         ADD "first_comment_status" varchar(16),
         ADD "first_comment_platform_id" varchar(512),
         ADD "first_comment_url" varchar(2048),
         ADD "first_comment_error" text,
         ADD "first_comment_attempts" integer NOT NULL DEFAULT 0,
         ADD "first_comment_due_at" timestamptz,
         ADD "first_comment_claim_job_id" varchar(128),
         ADD "first_comment_claimed_until" timestamptz`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_post_targets_first_comment_pending" ON "post_targets" ("id")
        WHERE "first_comment_status" = 'pending' AND "status" = 'published'`,
    );
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object('firstComment',
         "provider" IN ('sandbox', 'mastodon', 'bluesky', 'x', 'threads', 'facebook', 'instagram', 'linkedin'))
        WHERE NOT ("limits" ? 'firstComment')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "channels" SET "limits" = "limits" - 'firstComment'`);
    await queryRunner.query(`DROP INDEX "IDX_post_targets_first_comment_pending"`);
    await queryRunner.query(
      `ALTER TABLE "post_targets" DROP COLUMN "reply_ref", DROP COLUMN "first_comment", DROP COLUMN "first_comment_status",
         DROP COLUMN "first_comment_platform_id", DROP COLUMN "first_comment_url", DROP COLUMN "first_comment_error",
         DROP COLUMN "first_comment_attempts", DROP COLUMN "first_comment_due_at",
         DROP COLUMN "first_comment_claim_job_id", DROP COLUMN "first_comment_claimed_until"`,
    );
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "first_comment"`);
  }
}
