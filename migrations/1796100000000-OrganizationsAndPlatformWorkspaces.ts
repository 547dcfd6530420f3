import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations own workspaces (docs/adr/0052). Every existing workspace goes into one default
 * organization (the id DEFAULT_ORGANIZATION_ID of src/auth/organization.entity.ts); names become unique
 * per organization; workspaces gain the platform's `external_id` (unique per organization), `metadata`,
 * and `deleted_at`, set when an erasure is asked for.
 */
export class OrganizationsAndPlatformWorkspaces1796100000000 implements MigrationInterface {
  name = 'OrganizationsAndPlatformWorkspaces1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "organizations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6b031fcd0863e3f6b44230163f9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `INSERT INTO "organizations" ("id", "name") VALUES ('00000000-0000-4000-8000-000000000001', 'Default')`,
    );
    await queryRunner.query(
      `ALTER TABLE "workspaces" ADD "organization_id" uuid NOT NULL DEFAULT '00000000-0000-4000-8000-000000000001'`,
    );
    await queryRunner.query(`ALTER TABLE "workspaces" ALTER COLUMN "organization_id" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "external_id" character varying(200)`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "metadata" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD "deleted_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP CONSTRAINT "UQ_de659ece27e93d8fe29339d0a42"`);
    await queryRunner.query(
      `CREATE INDEX "IDX_workspaces_deleted_at" ON "workspaces" ("deleted_at") WHERE "deleted_at" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_workspaces_organization_external_id" ON "workspaces" ("organization_id", "external_id") WHERE "external_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_workspaces_organization_name" ON "workspaces" ("organization_id", "name") `,
    );
    await queryRunner.query(
      `ALTER TABLE "workspaces" ADD CONSTRAINT "FK_8b3a554dcc6c20e145f15a22e75" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "workspaces" DROP CONSTRAINT "FK_8b3a554dcc6c20e145f15a22e75"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_workspaces_organization_name"`);
    await queryRunner.query(`DROP INDEX "public"."UQ_workspaces_organization_external_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_workspaces_deleted_at"`);
    await queryRunner.query(`ALTER TABLE "workspaces" ADD CONSTRAINT "UQ_de659ece27e93d8fe29339d0a42" UNIQUE ("name")`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "deleted_at"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "metadata"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "external_id"`);
    await queryRunner.query(`ALTER TABLE "workspaces" DROP COLUMN "organization_id"`);
    await queryRunner.query(`DROP TABLE "organizations"`);
  }
}
