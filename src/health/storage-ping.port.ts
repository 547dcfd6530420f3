/**
 * What readiness (`GET /api/health/ready`) asks of the media storage: answers when the local directory is
 * writable or the S3 bucket answers with our credentials, throws otherwise. Health declares it; the
 * composition root (app.module.ts) binds media's storage driver to it, so health imports no feature.
 */
export interface StoragePing {
  ping(): Promise<void>;
}

export const STORAGE_PING = Symbol('STORAGE_PING');
