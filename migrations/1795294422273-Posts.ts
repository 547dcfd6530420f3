import { MigrationInterface, QueryRunner } from 'typeorm';

export class Posts1795294422273 implements MigrationInterface {
  name = 'Posts1795294422273';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "post_targets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "post_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "position" smallint NOT NULL, "status" character varying(16) NOT NULL, "publication" integer NOT NULL DEFAULT '0', "due_at" TIMESTAMP WITH TIME ZONE, "publication_started_at" TIMESTAMP WITH TIME ZONE, "claim_job_id" character varying(128), "claimed_until" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', "platform_post_id" character varying(512), "url" character varying(2048), "published_at" TIMESTAMP WITH TIME ZONE, "error_code" character varying(32), "error_message" text, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ab5ca61ef403b13ea38f944bd92" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_post_targets_due" ON "post_targets" ("due_at") WHERE status IN ('pending', 'publishing')`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_post_targets_channel_post" ON "post_targets" ("channel_id", "post_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_post_targets_post_channel" ON "post_targets" ("post_id", "channel_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "posts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "content" text NOT NULL, "status" character varying(16) NOT NULL, "media_ids" uuid array NOT NULL DEFAULT '{}', "scheduled_at" TIMESTAMP WITH TIME ZONE, "timeline_at" TIMESTAMP WITH TIME ZONE NOT NULL, "published_at" TIMESTAMP WITH TIME ZONE, "metadata" jsonb NOT NULL DEFAULT '{}', "publication" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2829ac61eff60fcec60d7274b9e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_posts_workspace_status_created" ON "posts" ("workspace_id", "status", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_posts_workspace_timeline" ON "posts" ("workspace_id", "timeline_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_posts_workspace_created" ON "posts" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "post_targets" ADD CONSTRAINT "FK_3d29022d9f716f9476cf9caa72b" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_targets" ADD CONSTRAINT "FK_a7b7c7c9f7b64e5cd279373608e" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "posts" ADD CONSTRAINT "FK_b1713d1067dce052aa5b05c0168" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" DROP CONSTRAINT "FK_b1713d1067dce052aa5b05c0168"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP CONSTRAINT "FK_a7b7c7c9f7b64e5cd279373608e"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP CONSTRAINT "FK_3d29022d9f716f9476cf9caa72b"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_posts_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_posts_workspace_timeline"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_posts_workspace_status_created"`);
    await queryRunner.query(`DROP TABLE "posts"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_post_targets_post_channel"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_post_targets_channel_post"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_post_targets_due"`);
    await queryRunner.query(`DROP TABLE "post_targets"`);
  }
}
