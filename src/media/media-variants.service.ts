import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { AppError } from '../common/errors';
import { mediaConfig } from '../config/media.config';
import { Transactions } from '../database/transactions';
import { withTemporaryCopy } from './image-check.util';
import { ImageConversionError, canConvert, convertImage, variantName } from './image-convert.util';
import { ImageSlots } from './image-slots';
import { MediaItemsStore } from './media-items.store';
import { MediaVariant } from './media-variant.entity';
import { MediaVariantsStore } from './media-variants.store';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';

/**
 * Media items converted to other types at publish time (docs/adr/0021), each converted once and
 * kept: bytes in storage under the item's id and the variant's name, a row in `media_variants`.
 *
 * Concurrency: conversions of one item to one type take turns, in this process (one promise per pair)
 * and across processes (a transaction-scoped advisory lock); the one holding the lock looks for the
 * row again before it converts, so the bytes are written once and the row inserted once. The item's
 * row is read FOR SHARE meanwhile, so a DELETE of the item (FOR UPDATE) waits and then removes the
 * variant's bytes too. A conversion takes one of the process's image slots (MEDIA_IMAGE_CONCURRENCY)
 * before its transaction, and decodes at most MEDIA_MAX_IMAGE_PIXELS.
 */
@Injectable()
export class MediaVariantsService {
  private readonly logger = new Logger(MediaVariantsService.name);
  private readonly inflight = new Map<string, Promise<MediaVariant>>();

  constructor(
    private readonly variants: MediaVariantsStore,
    private readonly items: MediaItemsStore,
    private readonly transactions: Transactions,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    private readonly slots: ImageSlots,
  ) {}

  /** The stored image conversion of the item to that type, or null when there is none (yet). */
  find(mediaId: string, mimeType: string): Promise<MediaVariant | null> {
    const name = variantName(mimeType);
    return name ? this.variants.find(mediaId, name) : Promise.resolve(null);
  }

  /** The item's stored variant of that name (`jpeg`, `poster`, `mp4...`), or null. */
  findNamed(mediaId: string, variant: string): Promise<MediaVariant | null> {
    return this.variants.find(mediaId, variant);
  }

  /** The variants of an item, read in `em`'s transaction (its deletion removes their bytes). */
  listIn(em: EntityManager, mediaId: string): Promise<MediaVariant[]> {
    return this.variants.listOf(em, mediaId);
  }

  /** Streams a variant's bytes (or a range of them). */
  open(mediaId: string, mimeType: string, range?: { start: number; end: number }): Readable {
    return this.storage.open(mediaId, { variant: this.nameOf(mimeType), range });
  }

  /**
   * The item converted to `mimeType`, converting it now if it never was. Throws NOT_FOUND when the
   * item is gone, CONFLICT when it is not ready, UNSUPPORTED_MEDIA_TYPE when it cannot be converted
   * (a video, a target type the service does not write, bytes the decoder refuses).
   */
  async convert(mediaId: string, mimeType: string): Promise<MediaVariant> {
    const existing = await this.find(mediaId, mimeType);
    if (existing) return existing;
    const key = `${mediaId}:${mimeType}`;
    let running = this.inflight.get(key);
    if (!running) {
      running = this.slots.run(() => this.convertOnce(mediaId, mimeType)).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    return running;
  }

  private async convertOnce(mediaId: string, mimeType: string): Promise<MediaVariant> {
    const variant = this.nameOf(mimeType);
    return this.transactions.run(async (em) => {
      await this.variants.lockConversion(em, mediaId, variant);
      const done = await this.variants.find(mediaId, variant, em);
      if (done) return done;
      const item = await this.items.lockForShare(em, mediaId);
      if (!item) throw AppError.notFound('Media');
      if (item.status !== 'ready') throw AppError.conflict(`Media is ${item.status}, not ready`);
      if (!canConvert(item.mimeType, mimeType)) {
        throw new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Media of type ${item.mimeType} cannot be converted to ${mimeType}`,
        );
      }
      const started = Date.now();
      let converted;
      try {
        converted = await withTemporaryCopy(this.storage.open(item.id), [], (path) =>
          convertImage(path, mimeType, { maxPixels: this.cfg.maxImagePixels }),
        );
      } catch (err) {
        if (err instanceof ImageConversionError) throw new AppError('UNSUPPORTED_MEDIA_TYPE', err.message);
        throw err;
      }
      await this.storage.writeVariant(item.id, variant, converted.data);
      const stored = await this.variants.insert(em, {
        mediaId,
        variant,
        mimeType,
        size: converted.data.length,
        durationMs: null,
        width: converted.width,
        height: converted.height,
        sha256: converted.sha256,
      });
      this.logger.log({
        msg: 'Converted a media item',
        mediaId,
        from: item.mimeType,
        to: mimeType,
        bytes: converted.data.length,
        ms: Date.now() - started,
      });
      return stored;
    });
  }

  private nameOf(mimeType: string): string {
    const name = variantName(mimeType);
    if (!name) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Media cannot be converted to ${mimeType}`);
    return name;
  }
}
