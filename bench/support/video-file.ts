import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Benches run from dist/bench (the compiled scripts); the fixtures stay in the source tree. */
const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'video');

export function videoFixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

/**
 * A real MP4 (2 s of H.264/AAC, index first, the committed fixture) followed by a `free` box of random
 * bytes up to `bytes`: finalize probes it as the 2 s video it is (players and ffprobe skip `free`
 * boxes), while the upload moves `bytes` of incompressible data. Up to 4 GiB (a 32-bit box size).
 */
export function makeVideoFile(bytes: number): Buffer {
  const video = videoFixture('h264-aac-faststart.mp4');
  const padding = bytes - video.length;
  if (padding < 8 || padding > 0xffffffff) throw new Error(`makeVideoFile: ${bytes} bytes is out of range`);
  const file = Buffer.allocUnsafe(bytes);
  video.copy(file, 0);
  randomFillSync(file, video.length + 8);
  file.writeUInt32BE(padding, video.length);
  file.write('free', video.length + 4, 'latin1');
  return file;
}
