import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted connect links (docs/adr/0055): `connect_links` (the SHA-256 of each link's token, never the
 * token), and the link an OAuth authorization was started from on `oauth_states` (no foreign key: a
 * link gone meanwhile reads as unusable).
 */
export class ConnectLinks1796200000000 implements MigrationInterface {
  name = 'ConnectLinks1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "connect_links" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "token_hash" character(64) NOT NULL, "redirect_url" character varying(2048) NOT NULL, "providers" character varying(32) array NOT NULL, "brand_name" character varying(100), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_68cdf3e92f6a5e0ba2cd4297ec4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_connect_links_workspace_created" ON "connect_links" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_connect_links_token_hash" ON "connect_links" ("token_hash") `);
    await queryRunner.query(`ALTER TABLE "oauth_states" ADD "connect_link_id" uuid`);
    await queryRunner.query(
      `ALTER TABLE "connect_links" ADD CONSTRAINT "FK_f7ca841c78a21316a874b2bcad6" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "connect_links" DROP CONSTRAINT "FK_f7ca841c78a21316a874b2bcad6"`);
    await queryRunner.query(`ALTER TABLE "oauth_states" DROP COLUMN "connect_link_id"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_connect_links_token_hash"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_connect_links_workspace_created"`);
    await queryRunner.query(`DROP TABLE "connect_links"`);
  }
}
