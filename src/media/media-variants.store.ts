import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { MediaConversionFailure } from './media-conversion-failure.entity';
import { MediaVariant } from './media-variant.entity';
import { MediaVideoConversion } from './media-video-conversion.entity';

/** What the run of a conversion learns when it takes it: until when someone waits, and how many wait. */
export interface ConversionClaim {
  waitUntil: Date;
  waiters: number;
}

/** `query()` answers an UPDATE ... RETURNING with [rows, count], an INSERT ... RETURNING with rows. */
function rowsOf<T>(result: unknown): T[] {
  const r = result as unknown[];
  return (Array.isArray(r[0]) ? r[0] : r) as T[];
}

/**
 * The `media_variants` table (owned by media): the converted copies of items;
 * `media_conversion_failures`: the conversions that failed, so they are not tried again and again; and
 * `media_video_conversions`: the video conversions asked for and not finished, with who waits for them.
 */
@Injectable()
export class MediaVariantsStore {
  constructor(@InjectRepository(MediaVariant) private readonly variants: Repository<MediaVariant>) {}

  /** The failure of the conversion of an item to that variant, if it failed. */
  findFailure(mediaId: string, variant: string): Promise<MediaConversionFailure | null> {
    return this.variants.manager.getRepository(MediaConversionFailure).findOneBy({ mediaId, variant });
  }

  /** Records that the conversion to that variant failed (the first failure stays). */
  async recordFailure(failure: Omit<MediaConversionFailure, 'failedAt' | 'media'>): Promise<void> {
    await this.variants.manager
      .getRepository(MediaConversionFailure)
      .createQueryBuilder()
      .insert()
      .values(failure)
      .orIgnore()
      .execute();
  }

  /**
   * Asks for a video conversion on behalf of `waiter` (a publish target) who waits until `waitUntil`:
   * creates its row, or joins the one there (the latest wait kept, the waiter added once). Returns true
   * when no run holds it (none yet, or its heartbeat is older than `staleMs`): a job must be queued.
   */
  async askConversion(
    mediaId: string,
    variant: string,
    waiter: string,
    waitUntil: Date,
    staleMs: number,
  ): Promise<boolean> {
    const rows = rowsOf<{ idle: boolean }>(
      await this.variants.query(
        `INSERT INTO media_video_conversions AS c (media_id, variant, wait_until, waiters)
         VALUES ($1, $2, $3, ARRAY[$4::text])
         ON CONFLICT (media_id, variant) DO UPDATE SET
           wait_until = GREATEST(c.wait_until, EXCLUDED.wait_until),
           waiters = CASE WHEN $4::text = ANY(c.waiters) THEN c.waiters ELSE array_append(c.waiters, $4::text) END
         RETURNING (c.heartbeat_at IS NULL OR c.heartbeat_at < now() - make_interval(secs => $5::double precision / 1000)) AS idle`,
        [mediaId, variant, waitUntil, waiter, staleMs],
      ),
    );
    return rows[0]?.idle ?? true;
  }

  /**
   * Takes the conversion for the run `runner`, unless a live run holds it (heartbeat within `staleMs`)
   * or nobody asks for it any more (no row). Returns until when it is waited for, and by how many.
   */
  async claimConversion(
    mediaId: string,
    variant: string,
    runner: string,
    staleMs: number,
  ): Promise<ConversionClaim | null> {
    const rows = rowsOf<{ wait_until: Date; waiters: number }>(
      await this.variants.query(
        `UPDATE media_video_conversions SET runner = $3, heartbeat_at = now()
         WHERE media_id = $1 AND variant = $2
           AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $4::double precision / 1000))
         RETURNING wait_until, cardinality(waiters) AS waiters`,
        [mediaId, variant, runner, staleMs],
      ),
    );
    return rows[0] ? { waitUntil: new Date(rows[0].wait_until), waiters: Number(rows[0].waiters) } : null;
  }

  /**
   * The run's heartbeat; says whether the conversion is still wanted: false once the wait is over or
   * nobody waits, or when the row is gone (the item deleted) or another run took it.
   */
  async beatConversion(mediaId: string, variant: string, runner: string): Promise<boolean> {
    const rows = rowsOf<{ wanted: boolean }>(
      await this.variants.query(
        `UPDATE media_video_conversions SET heartbeat_at = now()
         WHERE media_id = $1 AND variant = $2 AND runner = $3
         RETURNING (wait_until > now() AND cardinality(waiters) > 0) AS wanted`,
        [mediaId, variant, runner],
      ),
    );
    return rows[0]?.wanted ?? false;
  }

  /** The conversion ended (made, failed or stopped): its row goes, if this run (or, null, any) holds it. */
  async endConversion(
    mediaId: string,
    variant: string,
    runner: string | null,
    em: EntityManager = this.variants.manager,
  ): Promise<void> {
    await em
      .getRepository(MediaVideoConversion)
      .createQueryBuilder()
      .delete()
      .where('media_id = :mediaId AND variant = :variant', { mediaId, variant })
      .andWhere(runner === null ? '1 = 1' : 'runner = :runner', { runner })
      .execute();
  }

  /** `waiter` waits no more (its target published or failed): it is removed from every conversion. */
  async releaseConversions(waiter: string): Promise<void> {
    await this.variants.query(
      `UPDATE media_video_conversions SET waiters = array_remove(waiters, $1::text) WHERE $1::text = ANY(waiters)`,
      [waiter],
    );
  }

  /** The item's variant of that name (`jpeg`, `poster`, ...). */
  find(mediaId: string, variant: string, em: EntityManager = this.variants.manager): Promise<MediaVariant | null> {
    return em.getRepository(MediaVariant).findOneBy({ mediaId, variant });
  }

  /** The variants of an item, read in `em`'s transaction. */
  listOf(em: EntityManager, mediaId: string): Promise<MediaVariant[]> {
    return em.getRepository(MediaVariant).findBy({ mediaId });
  }

  /** Conversions of one item to one variant take turns across processes: a transaction-scoped advisory lock. */
  async lockConversion(em: EntityManager, mediaId: string, variant: string): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock(hashtext('media-variant'), hashtext($1::text))`, [
      `${mediaId}:${variant}`,
    ]);
  }

  /** Records a variant (unless one exists), then reads it. */
  async insert(em: EntityManager, variant: Omit<MediaVariant, 'createdAt' | 'media'>): Promise<MediaVariant> {
    const repo = em.getRepository(MediaVariant);
    await repo.createQueryBuilder().insert().values(variant).orIgnore().execute();
    return repo.findOneByOrFail({ mediaId: variant.mediaId, variant: variant.variant });
  }
}
