import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { mediaConfig } from '../config/media.config';
import { MediaItem } from './media-item.entity';
import { MediaController } from './media.controller';
import { MediaService } from './media.service';
import { LocalDiskStorage } from './storage/local-disk.storage';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';

/** Builds the storage driver named by MEDIA_STORAGE (only `local` ships; S3 would be one more case). */
function createMediaStorage(cfg: ConfigType<typeof mediaConfig>): MediaStorage {
  switch (cfg.storage) {
    case 'local':
      return new LocalDiskStorage(cfg.dir);
  }
}

/** Chunked media uploads, storage and reads. Exports MediaService (posts attach and publish media). */
@Module({
  imports: [TypeOrmModule.forFeature([MediaItem])],
  controllers: [MediaController],
  providers: [MediaService, { provide: MEDIA_STORAGE, inject: [mediaConfig.KEY], useFactory: createMediaStorage }],
  exports: [MediaService],
})
export class MediaModule {}
