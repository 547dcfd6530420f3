import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostTargetCheckpoints1795459672383 implements MigrationInterface {
  name = 'PostTargetCheckpoints1795459672383';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "post_target_checkpoints" ("target_id" uuid NOT NULL, "publication" integer NOT NULL, "index" smallint NOT NULL, "state" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e3f3566963e7aa0dd0579678533" PRIMARY KEY ("target_id", "publication", "index"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_target_checkpoints" ADD CONSTRAINT "FK_7d23966924e3a4c052b4586f437" FOREIGN KEY ("target_id") REFERENCES "post_targets"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_target_checkpoints" DROP CONSTRAINT "FK_7d23966924e3a4c052b4586f437"`);
    await queryRunner.query(`DROP TABLE "post_target_checkpoints"`);
  }
}
