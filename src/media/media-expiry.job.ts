import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { mediaConfig } from '../config/media.config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { MediaUploadService } from './media-upload.service';

/** Name of the periodic job (PeriodicJobs) that expires stale uploads. */
export const EXPIRE_UPLOADS_JOB = 'media.expire-uploads';

/** Uploads not finalized in time become `expired` and their parts are removed, every MEDIA_EXPIRY_SWEEP_SECONDS. */
@Injectable()
export class MediaExpiryJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly uploads: MediaUploadService,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every({
      name: EXPIRE_UPLOADS_JOB,
      everyMs: this.cfg.expirySweepSeconds * 1000,
      run: async () => ({ expired: await this.uploads.expireStaleUploads() }),
      describe: (r) => (r.expired > 0 ? r : undefined),
    });
  }
}
