import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth 2.1 authorization server of remote MCP agents (docs/adr/0043): registered clients, single-use
 * authorization codes, grants (each standing on an API key of the new kind `oauth`) and their hashed
 * access and refresh tokens. Existing keys are of kind `key`.
 */
export class OAuthServer1795950000000 implements MigrationInterface {
  name = 'OAuthServer1795950000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "oauth_clients" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "redirect_uris" character varying(2000) array NOT NULL, "client_uri" character varying(2000), "software" character varying(200), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c4759172d3431bae6f04e678e0d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "oauth_grants" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "client_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "user_id" uuid NOT NULL, "api_key_id" uuid NOT NULL, "scopes" character varying(32) array NOT NULL, "resource" character varying(2000) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_197229704270fa696b539aa1a22" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_oauth_grants_api_key" ON "oauth_grants" ("api_key_id") `);
    await queryRunner.query(
      `CREATE INDEX "IDX_oauth_grants_workspace_created" ON "oauth_grants" ("workspace_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "oauth_tokens" ("token_hash" character(64) NOT NULL, "grant_id" uuid NOT NULL, "kind" character varying(8) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e480dae4261d01e7191d7b70900" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_oauth_tokens_grant" ON "oauth_tokens" ("grant_id") `);
    await queryRunner.query(
      `CREATE TABLE "oauth_authorization_codes" ("code_hash" character(64) NOT NULL, "client_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "user_id" uuid NOT NULL, "redirect_uri" character varying(2000) NOT NULL, "code_challenge" character varying(128) NOT NULL, "scopes" character varying(32) array NOT NULL, "resource" character varying(2000) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "grant_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_25c7c7a7cdc5a6eb88200c472ca" PRIMARY KEY ("code_hash"))`,
    );
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "kind" character varying(8) NOT NULL DEFAULT 'key'`);
    await queryRunner.query(
      `ALTER TABLE "oauth_grants" ADD CONSTRAINT "FK_bb4e193edcaadd8e97166413e0c" FOREIGN KEY ("client_id") REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_grants" ADD CONSTRAINT "FK_76dc4cd26ec9a0e8d9c13f1f96b" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_grants" ADD CONSTRAINT "FK_7c995394933a14c9235b4b0bd88" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_grants" ADD CONSTRAINT "FK_7e0b377faf34ed33e6a2c42cb0d" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_tokens" ADD CONSTRAINT "FK_07c605221e8078326fa6e0da8f1" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "FK_85e243eecb2ac4428721a02da4e" FOREIGN KEY ("client_id") REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "FK_529797a42ea52878fcc930b2cf9" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "FK_1b5d11edec13074db58972ed81e" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oauth_authorization_codes" DROP CONSTRAINT "FK_1b5d11edec13074db58972ed81e"`);
    await queryRunner.query(`ALTER TABLE "oauth_authorization_codes" DROP CONSTRAINT "FK_529797a42ea52878fcc930b2cf9"`);
    await queryRunner.query(`ALTER TABLE "oauth_authorization_codes" DROP CONSTRAINT "FK_85e243eecb2ac4428721a02da4e"`);
    await queryRunner.query(`ALTER TABLE "oauth_tokens" DROP CONSTRAINT "FK_07c605221e8078326fa6e0da8f1"`);
    await queryRunner.query(`ALTER TABLE "oauth_grants" DROP CONSTRAINT "FK_7e0b377faf34ed33e6a2c42cb0d"`);
    await queryRunner.query(`ALTER TABLE "oauth_grants" DROP CONSTRAINT "FK_7c995394933a14c9235b4b0bd88"`);
    await queryRunner.query(`ALTER TABLE "oauth_grants" DROP CONSTRAINT "FK_76dc4cd26ec9a0e8d9c13f1f96b"`);
    await queryRunner.query(`ALTER TABLE "oauth_grants" DROP CONSTRAINT "FK_bb4e193edcaadd8e97166413e0c"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "kind"`);
    await queryRunner.query(`DROP TABLE "oauth_authorization_codes"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_tokens_grant"`);
    await queryRunner.query(`DROP TABLE "oauth_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_grants_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_oauth_grants_api_key"`);
    await queryRunner.query(`DROP TABLE "oauth_grants"`);
    await queryRunner.query(`DROP TABLE "oauth_clients"`);
  }
}
