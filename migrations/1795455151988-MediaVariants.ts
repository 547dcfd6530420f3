import { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaVariants1795455151988 implements MigrationInterface {
  name = 'MediaVariants1795455151988';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media_variants" ("media_id" uuid NOT NULL, "mime_type" character varying(127) NOT NULL, "size" bigint NOT NULL, "width" integer NOT NULL, "height" integer NOT NULL, "sha256" character varying(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_26856de129cde7c77ca943fe6bd" PRIMARY KEY ("media_id", "mime_type"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "media_variants" ADD CONSTRAINT "FK_753f0f51a9ad2ec1b896c61377e" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_variants" DROP CONSTRAINT "FK_753f0f51a9ad2ec1b896c61377e"`);
    await queryRunner.query(`DROP TABLE "media_variants"`);
  }
}
