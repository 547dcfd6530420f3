import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * YouTube channels take a first comment (commentThreads.insert) and TikTok channels take photo posts
 * (1 to 35 JPEG or WebP photos of at most 20 MB): channels connected before learn their new limits
 * (docs/adr/0042). A YouTube channel connected before also lacks the youtube.force-ssl scope a
 * comment needs: its comments fail with YouTube's refusal until it is connected again.
 */
export class YouTubeCommentsAndTikTokPhotos1795930000000 implements MigrationInterface {
  name = 'YouTubeCommentsAndTikTokPhotos1795930000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object('firstComment', true) WHERE "provider" = 'youtube'`,
    );
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object(
         'maxMedia', 35,
         'maxImageBytes', 20971520,
         'supportedMimeTypes', '["video/mp4", "video/quicktime", "video/webm", "image/jpeg", "image/webp"]'::jsonb)
        WHERE "provider" = 'tiktok'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object(
         'maxMedia', 1,
         'maxImageBytes', 4294967296,
         'supportedMimeTypes', '["video/mp4", "video/quicktime", "video/webm"]'::jsonb)
        WHERE "provider" = 'tiktok'`,
    );
    await queryRunner.query(
      `UPDATE "channels" SET "limits" = "limits" || jsonb_build_object('firstComment', false) WHERE "provider" = 'youtube'`,
    );
  }
}
