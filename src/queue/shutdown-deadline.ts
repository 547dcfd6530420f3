import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { appConfig } from '../config';

/**
 * One SIGTERM drain budget for the whole process. Nest runs the shutdown hooks of one module after
 * another, so a timeout per processor would add up (publishing, webhooks, analytics, periodic jobs):
 * instead the first hook starts one clock of SHUTDOWN_TIMEOUT_MS and every drain waits at most until
 * it ends. Work still running then is released: the process exits, Bull's lock on the job expires and
 * the database claim (publish target, webhook delivery, scheduled job lock) lets another worker take
 * it over.
 */
@Injectable()
export class ShutdownDeadline {
  private deadline: number | undefined;

  constructor(@Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>) {}

  /** Starts the clock (once; later calls keep the first deadline). */
  begin(): void {
    this.deadline ??= Date.now() + this.app.shutdownTimeoutMs;
  }

  /** Milliseconds left before the deadline (starting the clock if needed), never negative. */
  remainingMs(): number {
    this.begin();
    return Math.max(0, this.deadline! - Date.now());
  }

  /** Waits for `work` until the deadline; true when it settled in time (a rejection counts as settled). */
  async wait(work: Promise<unknown>): Promise<boolean> {
    const settled = work.then(
      () => true,
      () => true,
    );
    const left = this.remainingMs();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        settled,
        new Promise<boolean>((resolve) => (timer = setTimeout(resolve, left, false))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
