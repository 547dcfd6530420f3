import { MigrationInterface, QueryRunner } from 'typeorm';

export class Media1795294340363 implements MigrationInterface {
  name = 'Media1795294340363';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "status" character varying(16) NOT NULL, "filename" character varying(255) NOT NULL, "mime_type" character varying(127) NOT NULL, "size" bigint NOT NULL, "sha256" character varying(64), "width" integer, "height" integer, "chunk_size" integer NOT NULL, "total_chunks" integer NOT NULL, "received_chunks" integer array NOT NULL DEFAULT '{}', "expires_at" TIMESTAMP WITH TIME ZONE, "finalized_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_f4e0fcac36e050de337b670d8bd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_media_uploading_expires" ON "media" ("expires_at") WHERE status = 'uploading'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_media_workspace_created" ON "media" ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "media" ADD CONSTRAINT "FK_d150bb6186f15fdb8f1f84f5cdb" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media" DROP CONSTRAINT "FK_d150bb6186f15fdb8f1f84f5cdb"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_media_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_media_uploading_expires"`);
    await queryRunner.query(`DROP TABLE "media"`);
  }
}
