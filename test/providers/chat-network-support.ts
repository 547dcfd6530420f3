import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaClient } from '../media/media-support';
import { waitFor } from '../support/publishing-env';
import type { TestApp } from '../support/test-app';

/** A real one-second H.264 MP4 (64x64, silent), made with ffmpeg. */
export function makeMp4(): Buffer {
  return makeVideo({ seconds: 1, width: 64, height: 64 });
}

/** A real H.264 MP4 of the given length and size (silent, 10 fps), made with ffmpeg. */
export function makeVideo({ seconds, width, height }: { seconds: number; width: number; height: number }): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'mp4-'));
  try {
    const file = join(dir, 'clip.mp4');
    execFileSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        `color=c=blue:s=${width}x${height}:d=${seconds}:r=10`,
        '-c:v',
        'libx264',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        file,
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Uploads bytes as a ready media item of the workspace; returns its id. */
export async function uploadMedia(
  t: TestApp,
  key: string,
  bytes: Buffer,
  filename: string,
  mimeType: string,
  altText?: string,
): Promise<string> {
  const client = new MediaClient(t, key);
  const init = await client.initialize({ filename, mimeType, size: bytes.length, ...(altText ? { altText } : {}) });
  expect(init.status).toBe(201);
  expect((await client.chunk(init.body.id, 0, bytes)).status).toBe(200);
  expect((await client.finalize(init.body.id)).body.status).toBe('ready');
  return init.body.id as string;
}

/** Creates a post published now on one channel and waits until it is published or failed. */
export async function publishNow(
  t: TestApp,
  key: string,
  channelId: string,
  content: string,
  mediaIds: string[] = [],
  timeoutMs = 20_000,
) {
  const created = await t.request('POST', '/api/posts', {
    key,
    body: { content, channelIds: [channelId], mediaIds, publishNow: true },
  });
  expect(created.status).toBe(201);
  return waitFor(
    async () => (await t.request('GET', `/api/posts/${created.body.id}`, { key })).body,
    (p) => p.status === 'published' || p.status === 'failed',
    timeoutMs,
  );
}
