import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';
import { mediaConfig } from '../config/media.config';
import { MediaUrlImportService } from './media-url-import.service';
import { MediaQueue } from './media.queue';

/** Thin: a job names a `processing` item; MediaUrlImportService claims it and downloads it. */
@Injectable()
export class MediaImportProcessor implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('MediaImportProcessor');

  constructor(
    private readonly queue: MediaQueue,
    private readonly imports: MediaUrlImportService,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  onModuleInit(): void {
    this.queue.processImports(this.cfg.urlImportConcurrency, (data, jobId) =>
      this.imports.runImport(data.mediaId).catch((err: Error) => {
        // Storage or database trouble: the claim lapses and the sweep hands the item out again.
        this.logger.error({ msg: 'Media import job failed', jobId, err: err.message });
        throw err;
      }),
    );
  }

  /** SIGTERM drain: downloads still running after SHUTDOWN_TIMEOUT_MS are left to the sweep. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.queue.drain(this.app.shutdownTimeoutMs);
  }
}
