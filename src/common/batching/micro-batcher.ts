interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (reason: unknown) => void;
}

export interface MicroBatcherOptions {
  /** Largest batch handed to `run`. */
  maxBatch?: number;
  /**
   * Batches allowed to run at once. While that many are running, new items wait and join the next
   * batch, so batches grow with load (natural batching) instead of many tiny batches running side
   * by side. Default: unlimited.
   */
  maxInFlight?: number;
}

/**
 * Groups concurrent calls into batches, so many callers share one SQL statement and one commit
 * instead of one each. Under light load a batch holds one item and adds no delay (it runs on
 * setImmediate); under load, items arriving while `maxInFlight` batches run are queued for the next.
 */
export class MicroBatcher<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(
    /** Runs one batch; returns one result per item, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    options: MicroBatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 100;
    this.maxInFlight = options.maxInFlight ?? Infinity;
  }

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.inFlight >= this.maxInFlight) return; // picked up when a running batch ends
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.pending.splice(0, this.maxBatch);
      this.inFlight++;
      // An async wrapper turns a synchronous throw of `run` into a rejection like any other.
      (async () => this.run(batch.map((p) => p.item)))()
        .then(
          (results) => batch.forEach((p, i) => p.resolve(results[i])),
          (err: unknown) => batch.forEach((p) => p.reject(err)),
        )
        .finally(() => {
          this.inFlight--;
          if (this.pending.length > 0) this.flush();
        });
    }
  }
}
