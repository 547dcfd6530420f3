import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { AppError } from '../common/errors';
import { isUuid } from '../common/validators';
import { appConfig } from '../config';
import { mediaConfig } from '../config/media.config';
import { variantName } from './image-convert.util';
import { MediaItem } from './media-item.entity';
import { MediaItemsStore } from './media-items.store';
import { POSTER_VARIANT } from './video-media.util';
import { MediaUrlSigner } from './media-url-signer';
import { MediaVariantsService } from './media-variants.service';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage.interface';

/** What a signed content URL leads to: a presigned storage URL, or bytes this service streams. */
export type MediaContent =
  | { kind: 'redirect'; url: string }
  | {
      kind: 'bytes';
      mimeType: string;
      size: number;
      /** Lower-case hex SHA-256 of the bytes (the ETag). */
      sha256: string;
      /** Seconds until the URL's signature expires. */
      maxAgeSeconds: number;
      open(range?: { start: number; end: number }): Readable;
    };

/**
 * Signed public URLs of media bytes (docs/adr/0021): `{PUBLIC_BASE_URL}/api/media/{id}/content?expires&signature`,
 * plus `variant` for a converted copy. Networks that fetch media themselves (Threads, Instagram, Facebook)
 * get one per publish attempt; the URL needs no API key and works until it expires.
 */
@Injectable()
export class MediaContentService {
  private readonly signer: MediaUrlSigner;

  constructor(
    private readonly items: MediaItemsStore,
    private readonly variants: MediaVariantsService,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(mediaConfig.KEY) private readonly cfg: ConfigType<typeof mediaConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {
    this.signer = new MediaUrlSigner(cfg.signingKeys, cfg.signedUrlTtlSeconds);
  }

  /**
   * A fresh signed URL of the item's bytes, or of its copy in `mimeType` (converted already: see
   * MediaVariantsService.convert), valid MEDIA_URL_TTL_SECONDS.
   */
  signedUrl(mediaId: string, mimeType?: string): string {
    let variant: string | null = null;
    if (mimeType !== undefined) {
      variant = variantName(mimeType);
      if (!variant) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Media cannot be converted to ${mimeType}`);
    }
    return `${this.app.publicBaseUrl}/api/media/${mediaId}/content?${this.signer.queryString(mediaId, variant)}`;
  }

  /** A signed URL of the item's bytes that does not expire, the same at every call (docs/adr/0056). */
  permanentUrl(mediaId: string): string {
    return `${this.app.publicBaseUrl}/api/media/${mediaId}/content?${this.signer.permanentQueryString(mediaId)}`;
  }

  /** A fresh signed URL of one of the item's variants by name (`poster`, `mp4...`), valid MEDIA_URL_TTL_SECONDS. */
  signedVariantUrl(mediaId: string, variant: string): string {
    return `${this.app.publicBaseUrl}/api/media/${mediaId}/content?${this.signer.queryString(mediaId, variant)}`;
  }

  /**
   * The signed URLs a ready item carries: its bytes, and a video's poster; null while not ready (and
   * the poster for images and for videos finalized before posters were kept).
   */
  urlsOf(item: MediaItem): { contentUrl: string | null; posterUrl: string | null } {
    if (item.status !== 'ready') return { contentUrl: null, posterUrl: null };
    return {
      contentUrl: this.signedUrl(item.id),
      posterUrl: item.durationMs !== null ? this.signedVariantUrl(item.id, POSTER_VARIANT) : null,
    };
  }

  /**
   * The content behind a signed URL. The signature is checked before anything is read (403 FORBIDDEN
   * for a missing, malformed, wrong or expired one), so unsigned requests cost no database or storage
   * work. Then an item that does not exist (any more) or is not `ready` is 404, as is a variant that
   * was never made.
   */
  async resolve(mediaId: string, query: Record<string, unknown>): Promise<MediaContent> {
    const verdict = this.signer.verify(mediaId, query);
    if (!verdict.ok) {
      throw new AppError(
        'FORBIDDEN',
        verdict.reason === 'expired'
          ? 'This media URL has expired; ask for a new one'
          : verdict.reason === 'missing'
            ? 'This media URL needs the expires and signature parameters'
            : 'The signature of this media URL is wrong',
      );
    }
    const item = isUuid(mediaId) ? await this.items.findById(mediaId.toLowerCase()) : null;
    if (!item || item.status !== 'ready') throw AppError.notFound('Media');
    const maxAgeSeconds = Math.max(1, verdict.expires - Math.floor(Date.now() / 1000));

    let file: { mimeType: string; size: number; sha256: string; variant?: string };
    if (verdict.variant === null) {
      file = { mimeType: item.mimeType, size: item.size, sha256: item.sha256 ?? '' };
    } else {
      const stored = await this.variants.findNamed(item.id, verdict.variant);
      if (!stored) throw AppError.notFound('Media variant');
      file = { mimeType: stored.mimeType, size: stored.size, sha256: stored.sha256, variant: verdict.variant };
    }

    if (this.cfg.s3Redirect && this.storage.presignGet) {
      const url = await this.storage.presignGet(item.id, {
        variant: file.variant,
        // Never longer than the signed URL itself.
        expiresInSeconds: maxAgeSeconds,
        contentType: file.mimeType,
      });
      return { kind: 'redirect', url };
    }
    return {
      kind: 'bytes',
      mimeType: file.mimeType,
      size: file.size,
      sha256: file.sha256,
      maxAgeSeconds,
      open: (range) => this.storage.open(item.id, { variant: file.variant, range }),
    };
  }
}
