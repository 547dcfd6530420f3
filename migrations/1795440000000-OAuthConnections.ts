import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authorizations reaching several accounts wait in `oauth_connections` for the choice of targets;
 * channels connected by one authorization share its tokens through `credentials_group`.
 */
export class OAuthConnections1795440000000 implements MigrationInterface {
  name = 'OAuthConnections1795440000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "oauth_connections" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "provider" character varying(32) NOT NULL, "targets" text NOT NULL, "redirect_uri" character varying(2048), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_dd75e97352734560c9e585c057d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_oauth_connections_expires" ON "oauth_connections" ("expires_at") `);
    await queryRunner.query(
      `ALTER TABLE "oauth_connections" ADD CONSTRAINT "FK_917f4c83ff841083fd1a9656aed" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "channels" ADD "credentials_group" uuid`);
    await queryRunner.query(`CREATE INDEX "IDX_channels_credentials_group" ON "channels" ("credentials_group") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_channels_credentials_group"`);
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "credentials_group"`);
    await queryRunner.query(`ALTER TABLE "oauth_connections" DROP CONSTRAINT "FK_917f4c83ff841083fd1a9656aed"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_connections_expires"`);
    await queryRunner.query(`DROP TABLE "oauth_connections"`);
  }
}
