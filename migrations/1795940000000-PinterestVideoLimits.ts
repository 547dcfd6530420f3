import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pinterest video pins (docs/adr/0045): Pinterest channels connected before take MP4 and MOV videos
 * within Pinterest's limits (2 GB, 4 s to 15 min, width over height 1:2 to 1.91:1, one per pin, not
 * beside an image), as new connections do.
 */
export class PinterestVideoLimits1795940000000 implements MigrationInterface {
  name = 'PinterestVideoLimits1795940000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object(
         'supportedMimeTypes', '["image/jpeg", "image/png", "video/mp4", "video/quicktime"]'::jsonb,
         'video', '{"maxBytes": 2147483648, "minDurationSeconds": 4, "maxDurationSeconds": 900,
                    "mimeTypes": ["video/mp4", "video/quicktime"], "maxPerPost": 1,
                    "minAspectRatio": 0.5, "maxAspectRatio": 1.91, "mixWithImages": false}'::jsonb)
        WHERE "provider" = 'pinterest'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object(
         'supportedMimeTypes', '["image/jpeg", "image/png"]'::jsonb, 'video', 'null'::jsonb)
        WHERE "provider" = 'pinterest'`,
    );
  }
}
