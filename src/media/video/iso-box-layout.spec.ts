import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoxLayoutScanner, readBoxLayout, type BoxLayout } from './iso-box-layout';

const FIXTURES = join(__dirname, '../../../test/fixtures/video');

function box(type: string, payload: number): Buffer {
  const b = Buffer.alloc(8 + payload);
  b.writeUInt32BE(8 + payload, 0);
  b.write(type, 4, 'latin1');
  return b;
}

/** A box with a 64-bit size (size field 1, then the real size). */
function largeBox(type: string, payload: number): Buffer {
  const b = Buffer.alloc(16 + payload);
  b.writeUInt32BE(1, 0);
  b.write(type, 4, 'latin1');
  b.writeBigUInt64BE(BigInt(16 + payload), 8);
  return b;
}

function scan(bytes: Buffer, chunkSize: number): BoxLayout {
  const scanner = new BoxLayoutScanner();
  for (let i = 0; i < bytes.length; i += chunkSize) scanner.push(bytes.subarray(i, i + chunkSize));
  return scanner.finish();
}

describe('top-level box layout of MP4/MOV files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sps-boxes-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sees the index first in a faststart file and last in a default ffmpeg file', async () => {
    const fast = await readBoxLayout(join(FIXTURES, 'h264-aac-faststart.mp4'));
    expect(fast).toMatchObject({ faststart: true, truncated: null, malformedAt: null });
    expect(fast.moovAt!).toBeLessThan(fast.mdatAt!);
    const late = await readBoxLayout(join(FIXTURES, 'h264-moov-at-end.mp4'));
    expect(late).toMatchObject({ faststart: false, truncated: null, malformedAt: null });
    expect(late.moovAt!).toBeGreaterThan(late.mdatAt!);
  });

  it('notices a file cut inside its media data, which ffprobe alone reads without complaint', async () => {
    const layout = await readBoxLayout(join(FIXTURES, 'truncated.mp4'));
    expect(layout.truncated).toMatchObject({ type: 'mdat', fileEnd: 28007 });
    expect(layout.truncated!.declaredEnd).toBeGreaterThan(28007);
  });

  it('gives the same answer over a stream, whatever the chunk size', async () => {
    for (const name of ['h264-aac-faststart.mp4', 'h264-moov-at-end.mp4', 'hevc-rotated.mov', 'truncated.mp4']) {
      const file = join(FIXTURES, name);
      const expected = await readBoxLayout(file);
      const bytes = await readFile(file);
      for (const chunkSize of [1, 3, 7, 16, 4096, bytes.length]) {
        expect({ name, chunkSize, layout: scan(bytes, chunkSize) }).toEqual({ name, chunkSize, layout: expected });
      }
    }
  });

  it('follows 64-bit sizes and a last box that runs to the end of the file', async () => {
    const bytes = Buffer.concat([
      box('ftyp', 8),
      largeBox('moov', 20),
      box('free', 0),
      Buffer.from([0, 0, 0, 0]),
      Buffer.from('mdat'),
      Buffer.alloc(50),
    ]);
    const file = join(dir, 'large.mp4');
    await writeFile(file, bytes);
    const layout = await readBoxLayout(file);
    expect(layout).toMatchObject({ faststart: true, truncated: null, malformedAt: null, boxes: 4, moovAt: 16 });
    expect(scan(bytes, 5)).toEqual(layout);
  });

  it('calls a header cut short truncated and an impossible size malformed', async () => {
    const cutHeader = Buffer.concat([box('ftyp', 8), box('moov', 4), Buffer.from([0, 0, 1])]);
    const file = join(dir, 'cut.mp4');
    await writeFile(file, cutHeader);
    expect((await readBoxLayout(file)).truncated).toMatchObject({ type: '', at: 28, fileEnd: 31 });
    expect(scan(cutHeader, 2).truncated).toMatchObject({ type: '', at: 28, fileEnd: 31 });

    const malformed = Buffer.concat([box('ftyp', 8), Buffer.from([0, 0, 0, 4]), Buffer.from('moov'), Buffer.alloc(20)]);
    await writeFile(file, malformed);
    expect((await readBoxLayout(file)).malformedAt).toBe(16);
    expect(scan(malformed, 3).malformedAt).toBe(16);
  });
});
