import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { MediaConversionFailure } from './media-conversion-failure.entity';
import { MediaVariant } from './media-variant.entity';

/**
 * The `media_variants` table (owned by media): the converted copies of items; and
 * `media_conversion_failures`: the conversions that failed, so they are not tried again and again.
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
