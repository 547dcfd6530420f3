import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { Transactions } from '../database/transactions';
import { MediaContentService } from './media-content.service';
import { MediaItem } from './media-item.entity';
import { MediaItemsStore } from './media-items.store';
import { MediaVariantsService } from './media-variants.service';
import { MEDIA_USAGE, MediaUsage } from './media-usage.port';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';
import { cleanAltText } from './upload-state';
import { VideoForNetwork, VideoVariantsService, VideoWait } from './video-variants.service';
import type { VideoRequirements } from './video/video.interface';

/**
 * Media items: read, alt text, delete, and what the posts module relies on (the items of a post, their
 * bytes or a converted copy, signed URLs). Uploading them is MediaUploadService (initialize, chunks) and
 * MediaFinalizeService (finalize); from a URL, MediaUrlImportService; their content over signed URLs,
 * MediaContentService; converted copies, MediaVariantsService.
 */
@Injectable()
export class MediaService {
  constructor(
    private readonly items: MediaItemsStore,
    private readonly transactions: Transactions,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(MEDIA_USAGE) private readonly usage: MediaUsage,
    private readonly variants: MediaVariantsService,
    private readonly content: MediaContentService,
    private readonly videoVariants: VideoVariantsService,
  ) {}

  // ---- the contract the posts module relies on -------------------------------------------------

  /** The media items with these ids in the workspace (unknown or foreign ids are simply absent). */
  findMany(workspaceId: string, ids: string[]): Promise<MediaItem[]> {
    const valid = [...new Set(ids.filter((id) => isUuid(id)))];
    if (valid.length === 0) return Promise.resolve([]);
    return this.items.findMany(workspaceId, valid);
  }

  /**
   * Streams the final bytes of a `ready` item, or of its copy in `mimeType` (made by `convert`); the
   * stream errors if there are none.
   */
  open(mediaId: string, mimeType?: string): Readable {
    return mimeType === undefined ? this.storage.open(mediaId) : this.variants.open(mediaId, mimeType);
  }

  /**
   * The item as `mimeType` (`image/jpeg`, `image/png`, `image/webp`), converted once and kept with the
   * item. UNSUPPORTED_MEDIA_TYPE when it cannot be converted, NOT_FOUND when it is gone.
   */
  async convert(
    mediaId: string,
    mimeType: string,
  ): Promise<{ mimeType: string; size: number; width: number; height: number; sha256: string }> {
    const v = await this.variants.convert(mediaId, mimeType);
    return { mimeType: v.mimeType, size: v.size, width: v.width, height: v.height, sha256: v.sha256 };
  }

  /** A fresh signed public URL of the item's bytes (or of its copy in `mimeType`), valid MEDIA_URL_TTL_SECONDS. */
  signedUrl(mediaId: string, mimeType?: string): string {
    return this.content.signedUrl(mediaId, mimeType);
  }

  /** The video as a network takes it (see VideoVariantsService): ready, being converted, or refused. */
  videoFor(mediaId: string, requirements: VideoRequirements, wait?: VideoWait): Promise<VideoForNetwork> {
    return this.videoVariants.videoFor(mediaId, requirements, wait);
  }

  /** `waiter` (a publish target that published or failed) waits for no video conversion any more. */
  releaseVideoWaits(waiter: string): Promise<void> {
    return this.videoVariants.releaseWaits(waiter);
  }

  /** The bytes of a variant by name (a converted video). */
  openVariant(mediaId: string, variant: string): Readable {
    return this.storage.open(mediaId, { variant });
  }

  /** A fresh signed public URL of a variant by name. */
  signedVariantUrl(mediaId: string, variant: string): string {
    return this.content.signedVariantUrl(mediaId, variant);
  }

  /** A signed public URL of the bytes that does not expire (for media a post links for good). */
  permanentUrl(mediaId: string): string {
    return this.content.permanentUrl(mediaId);
  }

  // ---- read / delete ---------------------------------------------------------------------------

  async get(workspaceId: string, id: string): Promise<MediaItem> {
    const item = isUuid(id) ? await this.items.find(workspaceId, id) : null;
    if (!item) throw AppError.notFound('Media');
    return item;
  }

  /** Sets (or with null, removes) the item's alt text, whatever its state. */
  async updateAltText(workspaceId: string, id: string, altText: string | null): Promise<MediaItem> {
    const item = await this.get(workspaceId, id);
    await this.items.setAltText(workspaceId, item.id, cleanAltText(altText));
    return this.get(workspaceId, id);
  }

  /** The bytes the workspace's media hold in storage now (originals and converted copies; usage). */
  storedBytes(workspaceId: string): Promise<number> {
    return this.items.storedBytes(workspaceId);
  }

  /**
   * Erases every item of the workspace with its bytes, on disk or S3 (docs/adr/0052), in use or not: bytes
   * first, then the row, item by item, so a crash leaves no row without bytes to find again and no bytes
   * without a row. Returns how many items it erased.
   */
  async eraseWorkspace(workspaceId: string): Promise<number> {
    let erased = 0;
    for (;;) {
      const ids = await this.items.someIdsOfWorkspace(workspaceId, 100);
      if (ids.length === 0) return erased;
      for (const id of ids) {
        await this.transactions.run(async (em) => {
          const item = await this.items.lock(em, id, workspaceId);
          if (!item) return;
          for (const v of await this.variants.listIn(em, id)) await this.storage.removeVariant(id, v.variant);
          await this.storage.remove(id);
          await this.items.delete(em, workspaceId, id);
        });
        erased++;
      }
    }
  }

  /** Removes the item and its bytes; 409 while a scheduled or publishing post uses it. */
  async remove(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    await this.transactions.run(async (em) => {
      const item = await this.items.lock(em, id, workspaceId);
      if (!item) throw AppError.notFound('Media');
      if (await this.usage.isInUse(workspaceId, id)) {
        throw AppError.conflict('Media is used by a scheduled or publishing post');
      }
      // Bytes first: if this fails the row stays and the client can retry; the reverse would leak bytes.
      // Conversions hold the item FOR SHARE, so every variant made is listed here.
      for (const v of await this.variants.listIn(em, id)) await this.storage.removeVariant(id, v.variant);
      await this.storage.remove(id);
      await this.items.delete(em, workspaceId, id);
    });
  }
}
