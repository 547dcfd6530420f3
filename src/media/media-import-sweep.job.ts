import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { mediaConfig } from '../config/media.config';
import { PeriodicJobs } from '../scheduling/periodic-jobs.service';
import { MediaUrlImportService } from './media-url-import.service';

/** Name of the periodic job (PeriodicJobs) that keeps background downloads of uploads from a URL going. */
export const SWEEP_IMPORTS_JOB = 'media.sweep-imports';

/**
 * Every MEDIA_URL_SWEEP_SECONDS: `processing` items no worker holds are queued again (Redis lost the
 * job, or the worker died and its claim lapsed), and those whose tries are used up become `failed`.
 */
@Injectable()
export class MediaImportSweepJob implements OnModuleInit {
  constructor(
    private readonly periodicJobs: PeriodicJobs,
    private readonly imports: MediaUrlImportService,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
  ) {}

  onModuleInit(): void {
    this.periodicJobs.every({
      name: SWEEP_IMPORTS_JOB,
      everyMs: this.cfg.urlSweepMs,
      run: () => this.imports.sweep(),
      describe: (r) => (r.failed > 0 || r.requeued > 0 ? r : undefined),
    });
  }
}
