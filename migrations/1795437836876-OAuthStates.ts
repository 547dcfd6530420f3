import { MigrationInterface, QueryRunner } from 'typeorm';

export class OAuthStates1795437836876 implements MigrationInterface {
  name = 'OAuthStates1795437836876';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "oauth_states" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "state_hash" character varying(64) NOT NULL, "workspace_id" uuid NOT NULL, "provider" character varying(32) NOT NULL, "code_verifier" text NOT NULL, "redirect_uri" character varying(2048), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c9df6e4203e8ca042bfe5bd00ec" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_oauth_states_expires" ON "oauth_states" ("expires_at") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_oauth_states_hash" ON "oauth_states" ("state_hash") `);
    await queryRunner.query(
      `ALTER TABLE "oauth_states" ADD CONSTRAINT "FK_94ec762579af2450a51684f9ef1" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oauth_states" DROP CONSTRAINT "FK_94ec762579af2450a51684f9ef1"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_oauth_states_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_states_expires"`);
    await queryRunner.query(`DROP TABLE "oauth_states"`);
  }
}
