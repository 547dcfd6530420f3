import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboundHttp } from '../common/http/outbound-http';
import { appConfig } from '../config';
import { mediaConfig } from '../config/media.config';
import { videoConfig, type VideoConfig } from '../config/video.config';
import { VideoSlots } from './video-media.util';
import { VideoToolkit } from './video/video-toolkit.service';
import { VideoVariantsService } from './video-variants.service';
import { ImageSlots } from './image-slots';
import { MediaContentService } from './media-content.service';
import { MediaItem } from './media-item.entity';
import { MediaVideoConversion } from './media-video-conversion.entity';
import { MediaConversionFailure } from './media-conversion-failure.entity';
import { MediaVariant } from './media-variant.entity';
import { MediaVariantsService } from './media-variants.service';
import { MediaController } from './media.controller';
import { MEDIA_DOWNLOADER, MediaUrlImportService } from './media-url-import.service';
import { MediaFinalizeService } from './media-finalize.service';
import { MediaItemsStore } from './media-items.store';
import { MediaUploadService } from './media-upload.service';
import { MediaVariantsStore } from './media-variants.store';
import { MediaService } from './media.service';
import { MediaQueue } from './media.queue';
import { LocalDiskStorage } from './storage/local-disk.storage';
import { MediaMultipartStore } from './storage/media-multipart.store';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';
import { S3Storage, createS3Client } from './storage/s3.storage';

/** Builds the storage driver named by MEDIA_STORAGE. */
function createMediaStorage(cfg: ConfigType<typeof mediaConfig>, dataSource: DataSource): MediaStorage {
  switch (cfg.storage) {
    case 'local':
      return new LocalDiskStorage(cfg.dir);
    case 's3': {
      const s3 = cfg.s3!;
      return new S3Storage(createS3Client(s3), s3.bucket, s3.keyPrefix, new MediaMultipartStore(dataSource));
    }
  }
}

/**
 * Chunked media uploads, storage and reads, signed public URLs and converted copies (variants).
 * Exports MediaService (posts attach and publish media) and MediaContentService (signed URLs). Needs MEDIA_USAGE (posts' answer to "is this
 * item in use?"), bound by the composition root (app.module.ts).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([MediaItem, MediaVariant, MediaConversionFailure, MediaVideoConversion]),
    MediaQueue.registration(),
  ],
  controllers: [MediaController],
  providers: [
    MediaItemsStore,
    MediaVariantsStore,
    MediaService,
    MediaUploadService,
    MediaFinalizeService,
    MediaUrlImportService,
    MediaVariantsService,
    MediaContentService,
    MediaQueue,
    VideoToolkit,
    VideoVariantsService,
    {
      provide: VideoSlots,
      inject: [videoConfig.KEY],
      useFactory: (cfg: VideoConfig) => new VideoSlots(cfg.concurrency),
    },
    {
      provide: ImageSlots,
      inject: [mediaConfig.KEY],
      useFactory: (cfg: ConfigType<typeof mediaConfig>) => new ImageSlots(cfg.imageConcurrency),
    },
    { provide: MEDIA_STORAGE, inject: [mediaConfig.KEY, DataSource], useFactory: createMediaStorage },
    {
      provide: MEDIA_DOWNLOADER,
      inject: [appConfig.KEY, mediaConfig.KEY],
      useFactory: (app: ConfigType<typeof appConfig>, media: ConfigType<typeof mediaConfig>) =>
        new OutboundHttp({ allowPrivate: app.outboundAllowPrivate, defaultTimeoutMs: media.urlTimeoutMs }),
    },
  ],
  exports: [
    MediaService,
    MediaFinalizeService,
    MediaContentService,
    MediaUploadService,
    MediaUrlImportService,
    MediaQueue,
    MEDIA_STORAGE,
    VideoVariantsService,
    VideoToolkit,
  ],
})
export class MediaModule {}

/** Marks a route that reads multipart bodies (the console's upload route too): see media-multipart.ts. */
export { ACCEPTS_MULTIPART } from './media-multipart';
