import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server's purge (oauth-server.purge) finds expired codes and tokens by their expiry
 * instead of reading both tables whole.
 */
export class OAuthServerPurge1795960000000 implements MigrationInterface {
  name = 'OAuthServerPurge1795960000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_oauth_tokens_expires" ON "oauth_tokens" ("expires_at") `);
    await queryRunner.query(
      `CREATE INDEX "IDX_oauth_authorization_codes_expires" ON "oauth_authorization_codes" ("expires_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_authorization_codes_expires"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_oauth_tokens_expires"`);
  }
}
