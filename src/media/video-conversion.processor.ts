import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { videoConfig, type VideoConfig } from '../config/video.config';
import { MediaQueue } from './media.queue';
import { VideoVariantsService } from './video-variants.service';

/** Thin: a job names an item and a variant; VideoVariantsService makes it. */
@Injectable()
export class VideoConversionProcessor implements OnModuleInit {
  constructor(
    private readonly queue: MediaQueue,
    private readonly videos: VideoVariantsService,
    @Inject(videoConfig.KEY) private readonly cfg: VideoConfig,
  ) {}

  onModuleInit(): void {
    this.queue.processConversions(this.cfg.concurrency, (data) => this.videos.convert(data));
  }
}
