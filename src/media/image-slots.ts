import { Limiter, createLimiter } from '../common/concurrency-limiter';

/**
 * The images one process decodes at a time (MEDIA_IMAGE_CONCURRENCY): the check at finalize and the
 * conversions share the slots, so memory holds at most that many decoded images (each bounded by
 * MEDIA_MAX_IMAGE_PIXELS). A caller takes its slot before it opens a transaction, so waiting holds no
 * database connection.
 */
export class ImageSlots {
  private readonly limit: Limiter;
  private running = 0;
  private queued = 0;

  constructor(readonly size: number) {
    this.limit = createLimiter(size);
  }

  /** Decodes running now. */
  get active(): number {
    return this.running;
  }

  /** Decodes waiting for a slot. */
  get waiting(): number {
    return this.queued;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    this.queued += 1;
    return this.limit(async () => {
      this.queued -= 1;
      this.running += 1;
      try {
        return await task();
      } finally {
        this.running -= 1;
      }
    });
  }
}
