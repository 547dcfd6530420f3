import { MigrationInterface, QueryRunner } from 'typeorm';

/** Console accounts: users, memberships of workspaces, sessions, one-time setup and invitation links. */
export class ConsoleUsers1795300100000 implements MigrationInterface {
  name = 'ConsoleUsers1795300100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "email" character varying(254) NOT NULL, "password_hash" character varying(200), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "UQ_97672ac88f789774dd47f7c8be3" UNIQUE ("email"), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "console_sessions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "token_hash" character(64) NOT NULL, "user_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_15fe3f1740801e7a0581dea8d49" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_console_sessions_token_hash" ON "console_sessions" ("token_hash")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_console_sessions_user" ON "console_sessions" ("user_id")`);
    await queryRunner.query(
      `CREATE TABLE "user_links" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "token_hash" character(64) NOT NULL, "kind" character varying(16) NOT NULL, "workspace_id" uuid NOT NULL, "email" character varying(254), "role" character varying(16) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_9eb83d225b238275d61eeedd8b1" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_user_links_token_hash" ON "user_links" ("token_hash")`);
    await queryRunner.query(`CREATE INDEX "IDX_user_links_workspace" ON "user_links" ("workspace_id", "created_at")`);
    await queryRunner.query(
      `CREATE TABLE "memberships" ("user_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "role" character varying(16) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b30e6ce2c364503f9840fa6440b" PRIMARY KEY ("user_id", "workspace_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_memberships_workspace" ON "memberships" ("workspace_id")`);
    await queryRunner.query(
      `ALTER TABLE "console_sessions" ADD CONSTRAINT "FK_7cc109beca9adc3cbc175773b1e" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "console_sessions" ADD CONSTRAINT "FK_65560ad95b49d1b14fb7fe85e17" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "user_links" ADD CONSTRAINT "FK_0de46352fa337821f562bb563bb" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "memberships" ADD CONSTRAINT "FK_7c1e2fdfed4f6838e0c05ae5051" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "memberships" ADD CONSTRAINT "FK_9b76ecf1dda18a6adec17fe71c4" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "memberships" DROP CONSTRAINT "FK_9b76ecf1dda18a6adec17fe71c4"`);
    await queryRunner.query(`ALTER TABLE "memberships" DROP CONSTRAINT "FK_7c1e2fdfed4f6838e0c05ae5051"`);
    await queryRunner.query(`ALTER TABLE "user_links" DROP CONSTRAINT "FK_0de46352fa337821f562bb563bb"`);
    await queryRunner.query(`ALTER TABLE "console_sessions" DROP CONSTRAINT "FK_65560ad95b49d1b14fb7fe85e17"`);
    await queryRunner.query(`ALTER TABLE "console_sessions" DROP CONSTRAINT "FK_7cc109beca9adc3cbc175773b1e"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_memberships_workspace"`);
    await queryRunner.query(`DROP TABLE "memberships"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_user_links_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_user_links_token_hash"`);
    await queryRunner.query(`DROP TABLE "user_links"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_console_sessions_user"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_console_sessions_token_hash"`);
    await queryRunner.query(`DROP TABLE "console_sessions"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
