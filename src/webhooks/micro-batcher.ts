interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (reason: unknown) => void;
}

/**
 * Groups calls made in the same event-loop turn into one batch (at most `maxBatch` items), so many
 * concurrent deliveries share one SQL statement and one commit instead of one each. Under light load
 * a batch holds one item and adds no delay (it runs on setImmediate).
 */
export class MicroBatcher<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private scheduled = false;

  constructor(
    /** Runs one batch; returns one result per item, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      this.run(batch.map((p) => p.item)).then(
        (results) => batch.forEach((p, i) => p.resolve(results[i])),
        (err: unknown) => batch.forEach((p) => p.reject(err)),
      );
    }
  }
}
