import { BullModule, InjectQueue } from '@nestjs/bull';
import { DynamicModule, Injectable, Logger } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { boundedQueueCall } from '../queue/bounded-queue-call';
import { stopTakingJobs } from '../queue/stop-taking';

export const MEDIA_QUEUE = 'media';
export const IMPORT_URL_JOB = 'import-url';

export const CONVERT_VIDEO_JOB = 'convert-video';

export interface ImportUrlJobData {
  mediaId: string;
}

/** A video variant to make (video-variants.service.ts): the item, the variant's name, how, and the caps. */
export interface ConvertVideoJobData {
  mediaId: string;
  variant: string;
  conversion: 'remux' | 'transcode';
  caps: { maxFrameRate?: number; maxBitrate?: number; maxLongSide?: number; maxShortSide?: number };
}

/** A `processing` item to hand to a worker: its id and the background downloads it has had. */
export interface EnqueueableImport {
  id: string;
  importAttempts: number;
}

/**
 * The media queue: background downloads of uploads from a URL. Jobs carry the item's id; the job id
 * is deterministic per try, so enqueueing twice is a no-op, and the item's row is the record (the
 * sweep re-queues what Redis lost).
 */
@Injectable()
export class MediaQueue {
  private readonly logger = new Logger('MediaQueue');

  constructor(@InjectQueue(MEDIA_QUEUE) private readonly queue: Queue<ImportUrlJobData | ConvertVideoJobData>) {}

  /** The queue's registration, imported by MediaModule. */
  static registration(): DynamicModule {
    return BullModule.registerQueue({ name: MEDIA_QUEUE });
  }

  static jobId(item: EnqueueableImport): string {
    return `import-url:${item.id}:${item.importAttempts}`;
  }

  /** Adds (or keeps) one job per item. Failures are logged: the sweep catches up. Returns how many were handed over. */
  async enqueueImports(items: EnqueueableImport[]): Promise<number> {
    if (items.length === 0) return 0;
    try {
      await boundedQueueCall(this.queue, 'accept the media jobs', () =>
        this.queue.addBulk(
          items.map((item) => ({
            name: IMPORT_URL_JOB,
            data: { mediaId: item.id },
            opts: { jobId: MediaQueue.jobId(item), removeOnComplete: true, removeOnFail: true, attempts: 1 },
          })),
        ),
      );
      return items.length;
    } catch (err) {
      this.logger.warn(`Could not enqueue ${items.length} media job(s), the sweep will: ${(err as Error).message}`);
      return 0;
    }
  }

  /**
   * Asks for a video variant once: the job id is the item and the variant, so asking again while it is
   * waiting or running adds nothing. Throws when Redis does not take it (the caller asks again later).
   */
  async enqueueConversion(data: ConvertVideoJobData): Promise<void> {
    await boundedQueueCall(this.queue, 'accept the video conversion', () =>
      this.queue.add(CONVERT_VIDEO_JOB, data, {
        jobId: `convert-video:${data.mediaId}:${data.variant}`,
        removeOnComplete: true,
        removeOnFail: true,
        attempts: 1,
      }),
    );
  }

  /** Runs `handler` for video conversions, `concurrency` at a time, in this process. */
  processConversions(concurrency: number, handler: (data: ConvertVideoJobData) => Promise<unknown>): void {
    void this.queue.process(CONVERT_VIDEO_JOB, concurrency, (job: Job<ImportUrlJobData | ConvertVideoJobData>) =>
      handler(job.data as ConvertVideoJobData),
    );
  }

  /** Runs `handler` for background downloads, `concurrency` at a time, in this process. */
  processImports(concurrency: number, handler: (data: ImportUrlJobData, jobId: string) => Promise<unknown>): void {
    void this.queue.process(IMPORT_URL_JOB, concurrency, (job: Job<ImportUrlJobData | ConvertVideoJobData>) =>
      handler(job.data, String(job.id)),
    );
  }

  /** Stops taking jobs and waits (at most `timeoutMs`) for the ones running here. For the SIGTERM drain. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      stopTakingJobs(this.queue)
        .then(() => this.queue.close())
        .catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}
