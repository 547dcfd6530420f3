import { MigrationInterface, QueryRunner } from 'typeorm';

export class ScheduledJobs1795433600000 implements MigrationInterface {
  name = 'ScheduledJobs1795433600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "scheduled_jobs" ("name" character varying(100) NOT NULL, "every_ms" integer NOT NULL, "last_started_at" TIMESTAMP WITH TIME ZONE, "last_finished_at" TIMESTAMP WITH TIME ZONE, "last_error" text, "runs" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_scheduled_jobs_name" PRIMARY KEY ("name"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "scheduled_jobs"`);
  }
}
