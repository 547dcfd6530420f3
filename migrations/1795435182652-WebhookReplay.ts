import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookReplay1795435182652 implements MigrationInterface {
  name = 'WebhookReplay1795435182652';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhooks" ADD "last_replay_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhooks" DROP COLUMN "last_replay_at"`);
  }
}
