import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Queue } from 'bull';
import { mediaConfig } from '../config/media.config';
import { MediaService } from './media.service';

export const MEDIA_QUEUE = 'media';
export const EXPIRE_UPLOADS_JOB = 'expire-uploads';

/** Repeatable job: uploads not finalized in time become `expired` and their parts are removed. */
@Processor(MEDIA_QUEUE)
@Injectable()
export class MediaExpiryProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger(MediaExpiryProcessor.name);

  constructor(
    @InjectQueue(MEDIA_QUEUE) private readonly queue: Queue,
    private readonly media: MediaService,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
  ) {}

  /** Schedules the sweep once per deployment (Bull dedupes repeatable jobs by name and interval). */
  async onApplicationBootstrap(): Promise<void> {
    const every = this.cfg.expirySweepSeconds * 1000;
    try {
      for (const job of await this.queue.getRepeatableJobs()) {
        if (job.name === EXPIRE_UPLOADS_JOB && Number(job.every) !== every) {
          await this.queue.removeRepeatableByKey(job.key);
        }
      }
      await this.queue.add(EXPIRE_UPLOADS_JOB, {}, { repeat: { every }, removeOnComplete: true, removeOnFail: 100 });
    } catch (err) {
      this.logger.error({ msg: 'Could not schedule the upload expiry sweep', err: (err as Error).message });
    }
  }

  @Process(EXPIRE_UPLOADS_JOB)
  async expireUploads(): Promise<{ expired: number }> {
    return { expired: await this.media.expireStaleUploads() };
  }
}
