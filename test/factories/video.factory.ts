import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The committed video fixtures (test/fixtures/video/make-fixtures.sh makes them). */
export function videoFixture(name: string): Buffer {
  return readFileSync(join(__dirname, '../fixtures/video', name));
}

/**
 * A real, playable H.264/AAC MP4 (2 s, 320 x 240, index first) grown to `bytes` with a trailing `free`
 * box of random bytes (players and ffprobe skip it): a video of any size for upload tests.
 */
export function paddedMp4(bytes: number): Buffer {
  const video = videoFixture('h264-aac-faststart.mp4');
  const padding = bytes - video.length;
  if (padding < 8) throw new Error(`paddedMp4 needs at least ${video.length + 8} bytes`);
  const free = Buffer.alloc(padding);
  free.writeUInt32BE(padding, 0);
  free.write('free', 4, 'latin1');
  for (let i = 8; i < padding; i += 4096) free[i] = (i * 2654435761) & 0xff;
  return Buffer.concat([video, free]);
}
