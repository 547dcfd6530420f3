import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { videoConfig, type VideoConfig } from '../../config/video.config';
import { runTool } from './ffmpeg-process';
import { readBoxLayout } from './iso-box-layout';
import {
  VideoConversionError,
  VideoNoVideoStreamError,
  VideoNotAVideoError,
  VideoTooLargeError,
  VideoToolTimeoutError,
  VideoTruncatedError,
  VideoTypeMismatchError,
  VideoUndecodableError,
} from './video.errors';
import type { VideoProbe } from './video.interface';
import { VideoToolkit } from './video-toolkit.service';

/** Made by test/fixtures/video/make-fixtures.sh. */
const FIXTURES = join(__dirname, '../../../test/fixtures/video');
const fixture = (name: string) => join(FIXTURES, name);

const CONFIG: VideoConfig = {
  ffprobePath: 'ffprobe',
  ffmpegPath: 'ffmpeg',
  probeTimeoutMs: 30_000,
  convertTimeoutMs: 120_000,
  threads: 2,
  x264Preset: 'veryfast',
  maxVideoBytes: 4 * 1024 ** 3,
  concurrency: 2,
  transcode: true,
  processingMaxWaitMs: 1_800_000,
  maxPixels: 4096 * 2304,
  maxDimension: 4096,
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Per-packet hashes of the video track, without decoding: equal when the bytes were copied as they are. */
async function videoPacketHashes(file: string): Promise<string[]> {
  const r = await runTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-i',
      file,
      '-map',
      '0:v:0',
      '-c',
      'copy',
      '-f',
      'framemd5',
      'pipe:1',
    ],
    { timeoutMs: 30_000, maxStdoutBytes: 1024 * 1024 },
  );
  expect(r.code).toBe(0);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(',').pop()!.trim());
}

/** Every case is probed twice: from the file (ends read with a seek) and as a stream (one pass). */
const probeBoth = async (kit: VideoToolkit, name: string, declaredType?: string): Promise<VideoProbe> => {
  const fromFile = await kit.probe(fixture(name), { declaredType });
  const fromStream = await kit.probe(createReadStream(fixture(name), { highWaterMark: 4096 }), { declaredType });
  expect(fromStream).toEqual(fromFile);
  return fromFile;
};

describe('VideoToolkit (ffprobe and ffmpeg on real files)', () => {
  const kit = new VideoToolkit(CONFIG);
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sps-video-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('probe', () => {
    it('reads an H.264/AAC MP4 with its index first', async () => {
      expect(await probeBoth(kit, 'h264-aac-faststart.mp4', 'video/mp4')).toEqual({
        container: 'mp4',
        mimeType: 'video/mp4',
        formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
        sizeBytes: 42011,
        durationMs: 2000,
        width: 320,
        height: 240,
        codedWidth: 320,
        codedHeight: 240,
        rotation: 0,
        frameRate: 25,
        videoCodec: 'h264',
        videoProfile: 'High',
        pixelFormat: 'yuv420p',
        videoBitrate: expect.any(Number),
        audioCodec: 'aac',
        audioChannels: 1,
        audioSampleRate: 48000,
        bitrate: Math.round((42011 * 8) / 2),
        faststart: true,
      });
    });

    it('sees the index at the end of a default ffmpeg MP4', async () => {
      expect(await probeBoth(kit, 'h264-moov-at-end.mp4', 'video/mp4')).toMatchObject({
        videoCodec: 'h264',
        audioCodec: 'aac',
        audioSampleRate: 44100,
        frameRate: 24,
        durationMs: 2000,
        faststart: false,
      });
    });

    it('reports a rotated HEVC QuickTime video at its displayed size', async () => {
      expect(await probeBoth(kit, 'hevc-rotated.mov', 'video/quicktime')).toMatchObject({
        container: 'quicktime',
        mimeType: 'video/quicktime',
        videoCodec: 'hevc',
        videoProfile: 'Main',
        codedWidth: 1280,
        codedHeight: 720,
        rotation: 270,
        width: 720,
        height: 1280,
        frameRate: 30,
        durationMs: 1000,
        audioCodec: 'aac',
        faststart: false,
      });
    });

    it('reads VP9/Opus and silent VP8 WebM files, where the index question does not arise', async () => {
      expect(await probeBoth(kit, 'vp9-opus.webm', 'video/webm')).toMatchObject({
        container: 'webm',
        mimeType: 'video/webm',
        formatName: 'matroska,webm',
        videoCodec: 'vp9',
        audioCodec: 'opus',
        width: 320,
        height: 240,
        frameRate: 30,
        durationMs: 2008,
        faststart: null,
        bitrate: expect.any(Number),
      });
      expect(await probeBoth(kit, 'vp8-silent.webm', 'video/webm')).toMatchObject({
        videoCodec: 'vp8',
        audioCodec: null,
        audioChannels: null,
        frameRate: 15,
        durationMs: 2000,
      });
    });

    it('times a WebM recorded to a pipe, which declares no duration, from its packets', async () => {
      const header = await runTool(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', fixture('vp8-opus-live.webm')],
        {
          timeoutMs: 10_000,
        },
      );
      expect(header.stdout.toString().trim()).toBe('N/A');
      const probe = await probeBoth(kit, 'vp8-opus-live.webm', 'video/webm');
      expect(probe.durationMs).toBeGreaterThanOrEqual(1950);
      expect(probe.durationMs).toBeLessThanOrEqual(2050);
      expect(probe).toMatchObject({ videoCodec: 'vp8', audioCodec: 'opus', frameRate: 30 });
    });

    it('reads AV1 and a vertical 9:16 60 fps short', async () => {
      expect(await probeBoth(kit, 'av1.mp4', 'video/mp4')).toMatchObject({
        videoCodec: 'av1',
        audioCodec: null,
        width: 320,
        height: 240,
        frameRate: 24,
        durationMs: 1000,
        faststart: true,
      });
      const short = await probeBoth(kit, 'vertical-9x16.mp4', 'video/mp4');
      expect(short).toMatchObject({ width: 288, height: 512, frameRate: 60, durationMs: 2000, rotation: 0 });
      expect(short.width / short.height).toBeCloseTo(9 / 16, 3);
    });

    it('refuses an MP4 cut inside its media data (ffprobe alone reads it without complaint)', async () => {
      for (const source of [fixture('truncated.mp4'), createReadStream(fixture('truncated.mp4'))]) {
        const err = await kit.probe(source, { declaredType: 'video/mp4' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(VideoTruncatedError);
        expect(err).toMatchObject({ reason: 'truncated', inputProblem: true });
        expect((err as Error).message).toBe(
          'The video is incomplete (truncated): the file ends after 28007 bytes, inside its media data (mdat), ' +
            'which needs 14004 more bytes. Upload the whole file again',
        );
      }
    });

    it('refuses an MP4 whose index was at the end and got cut off', async () => {
      const bytes = await readFile(fixture('h264-moov-at-end.mp4'));
      const file = join(dir, 'cut-before-moov.mp4');
      const layout = await readBoxLayout(fixture('h264-moov-at-end.mp4'));
      await writeFile(file, bytes.subarray(0, layout.moovAt! - 100));
      await expect(kit.probe(file)).rejects.toThrow(VideoTruncatedError);
      await expect(kit.probe(file)).rejects.toThrow(/inside its media data \(mdat\)/);
    });

    it('refuses a WebM cut in the middle, from a file and from a stream', async () => {
      const bytes = await readFile(fixture('vp9-opus.webm'));
      const file = join(dir, 'cut.webm');
      await writeFile(file, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      for (const source of [file, createReadStream(file)]) {
        const err = await kit.probe(source, { declaredType: 'video/webm' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(VideoTruncatedError);
        expect((err as Error).message).toMatch(
          /^The video is incomplete \(truncated\): its media data stops after 1(\.\d)? s of the 2 s it declares\. Upload the whole file again$/,
        );
        // ffprobe's own words (which name the file's path) are kept for the log, not in the message.
        expect((err as VideoTruncatedError).toolOutput).toMatch(/^ffprobe .*File ended prematurely/);
      }
      // Without the check, only the header is read, and it says 2 s.
      expect((await kit.probe(file, { checkIntegrity: false })).durationMs).toBe(2008);
    });

    it('refuses an audio-only MP4: it has no video track', async () => {
      for (const source of [fixture('audio-only.mp4'), createReadStream(fixture('audio-only.mp4'))]) {
        const err = await kit.probe(source, { declaredType: 'video/mp4' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(VideoNoVideoStreamError);
        expect(err).toMatchObject({ reason: 'no_video_stream', inputProblem: true });
        expect((err as Error).message).toBe('The file has no video track: it holds only audio (aac)');
      }
    });

    it('refuses a PNG named .mp4 before ffprobe runs, and WebM bytes declared as video/mp4', async () => {
      const png = await kit.probe(fixture('png-named.mp4'), { declaredType: 'video/mp4' }).catch((e: unknown) => e);
      expect(png).toBeInstanceOf(VideoNotAVideoError);
      expect(png).toMatchObject({ reason: 'not_a_video', actualType: 'image/png', declaredType: 'video/mp4' });
      expect((png as Error).message).toBe(
        'The file (declared as video/mp4) is an image or other non-video file (image/png); videos must be MP4, QuickTime (MOV) or WebM',
      );
      for (const source of [fixture('webm-named.mp4'), createReadStream(fixture('webm-named.mp4'))]) {
        const webm = await kit.probe(source, { declaredType: 'video/mp4' }).catch((e: unknown) => e);
        expect(webm).toBeInstanceOf(VideoTypeMismatchError);
        expect((webm as Error).message).toBe("The file's bytes are video/webm, not video/mp4 as declared");
      }
      // Without a declared type the same bytes are a fine WebM.
      expect((await kit.probe(fixture('webm-named.mp4'))).mimeType).toBe('video/webm');
      await expect(kit.probe(fixture('h264-aac-faststart.mp4'), { declaredType: 'video/quicktime' })).rejects.toThrow(
        VideoTypeMismatchError,
      );
    });

    it('refuses bytes of no known type, empty input, and an MP4 whose index is garbage', async () => {
      const text = join(dir, 'notes.mp4');
      await writeFile(text, 'just some text, not a video at all, long enough to be sniffed properly by the service');
      await expect(kit.probe(text)).rejects.toThrow(VideoNotAVideoError);
      await expect(kit.probe(text)).rejects.toThrow(/is not a video the service can read/);
      const empty = join(dir, 'empty.mp4');
      await writeFile(empty, '');
      await expect(kit.probe(empty)).rejects.toThrow(VideoNotAVideoError);
      await expect(kit.probe(createReadStream(empty))).rejects.toThrow(VideoNotAVideoError);

      // The index box stays where it is, with its size; everything in it is overwritten.
      const bytes = await readFile(fixture('h264-aac-faststart.mp4'));
      const { moovAt } = await readBoxLayout(fixture('h264-aac-faststart.mp4'));
      const broken = Buffer.from(bytes);
      broken.fill(0xab, moovAt! + 8, moovAt! + bytes.readUInt32BE(moovAt!));
      const garbage = join(dir, 'garbage-index.mp4');
      await writeFile(garbage, broken);
      const err = await kit.probe(garbage).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VideoUndecodableError);
      expect(err).toMatchObject({ reason: 'undecodable', inputProblem: true });
      expect((err as Error).message).toBe(
        'The video cannot be decoded: ffprobe finds no track in it at all (its index may be damaged)',
      );
    });

    it('kills ffprobe when the probe runs out of time', async () => {
      const err = await kit.probe(fixture('h264-aac-faststart.mp4'), { timeoutMs: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VideoToolTimeoutError);
      expect(err).toMatchObject({ reason: 'timeout', inputProblem: false, tool: 'ffprobe' });
      const { pid } = err as VideoToolTimeoutError;
      expect(pid).toBeDefined();
      expect(alive(pid!)).toBe(false);
    });
  });

  describe('extractPoster', () => {
    it('takes a JPEG frame at the video size, 10% in (at most 1 s)', async () => {
      const poster = await kit.extractPoster(fixture('h264-aac-faststart.mp4'));
      expect(poster).toMatchObject({ width: 320, height: 240, atMs: 200 });
      const meta = await sharp(poster.data).metadata();
      expect(meta).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
    });

    it('applies the rotation and scales the long side down', async () => {
      const poster = await kit.extractPoster(fixture('hevc-rotated.mov'), { maxLongSide: 640 });
      expect(poster).toMatchObject({ width: 360, height: 640 });
      expect(await sharp(poster.data).metadata()).toMatchObject({ format: 'jpeg', width: 360, height: 640 });
      const big = await kit.extractPoster(fixture('hevc-rotated.mov'));
      expect(await sharp(big.data).metadata()).toMatchObject({ width: 720, height: 1280 });
    });

    it('decodes WebM and AV1 frames too, and falls back to the first frame past the end', async () => {
      for (const name of ['vp9-opus.webm', 'vp8-silent.webm', 'av1.mp4']) {
        const poster = await kit.extractPoster(fixture(name));
        expect(await sharp(poster.data).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
      }
      const late = await kit.extractPoster(fixture('vp8-silent.webm'), { atMs: 60_000 });
      expect(late.atMs).toBe(0);
      expect((await sharp(late.data).metadata()).format).toBe('jpeg');
    });
  });

  describe('probeWithPoster', () => {
    it('gives the same probe as probe() and the same poster as extractPoster()', async () => {
      for (const [name, type] of [
        ['h264-aac-faststart.mp4', 'video/mp4'],
        ['hevc-rotated.mov', 'video/quicktime'],
        ['vp8-opus-live.webm', 'video/webm'], // declares no duration: timed from its packets first
      ] as const) {
        const both = await kit.probeWithPoster(fixture(name), { declaredType: type });
        expect(both.probe).toEqual(await kit.probe(fixture(name), { declaredType: type }));
        const poster = await kit.extractPoster(fixture(name));
        expect(both.poster).toMatchObject({ width: poster.width, height: poster.height, atMs: poster.atMs });
        expect((await sharp(both.poster.data).metadata()).format).toBe('jpeg');
      }
    });

    it('names the truncation, not a poster problem, for a file cut inside its media data', async () => {
      const err = await kit.probeWithPoster(fixture('truncated.mp4'), { declaredType: 'video/mp4' }).catch((e) => e);
      expect(err).toBeInstanceOf(VideoTruncatedError);
    });

    it('refuses frames above the pixel or side bounds, from the header, before any poster', async () => {
      // h264-aac-faststart.mp4 is 320 x 240 = 76,800 pixels.
      const fewPixels = new VideoToolkit({ ...CONFIG, maxPixels: 76_799 });
      const err = await fewPixels.probeWithPoster(fixture('h264-aac-faststart.mp4')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VideoTooLargeError);
      expect(err).toMatchObject({ reason: 'too_large', inputProblem: true, width: 320, height: 240 });
      expect((err as Error).message).toBe(
        "The video's frames are 320 x 240 pixels (76,800 per frame); this service takes videos of at most 76,799 " +
          'pixels per frame and 4,096 pixels a side: scale it down (4K UHD, 3840 x 2160, or less) and upload it again',
      );
      const narrow = new VideoToolkit({ ...CONFIG, maxDimension: 300 });
      await expect(narrow.probe(fixture('h264-aac-faststart.mp4'))).rejects.toBeInstanceOf(VideoTooLargeError);
      await expect(
        narrow.probe(createReadStream(fixture('vp9-opus.webm')), { declaredType: 'video/webm' }),
      ).rejects.toBeInstanceOf(VideoTooLargeError);
      // Exactly at the bounds is fine.
      const exact = new VideoToolkit({ ...CONFIG, maxPixels: 76_800, maxDimension: 320 });
      await expect(exact.probe(fixture('h264-aac-faststart.mp4'))).resolves.toMatchObject({ width: 320, height: 240 });
    });

    it('refuses an audio-only file before taking any poster', async () => {
      await expect(kit.probeWithPoster(fixture('audio-only.mp4'), { declaredType: 'video/mp4' })).rejects.toThrow(
        VideoNoVideoStreamError,
      );
    });
  });

  describe('transcode and remux', () => {
    it('transcodes a rotated HEVC MOV to an H.264/AAC MP4 with its index first, upright', async () => {
      const out = join(dir, 'from-hevc.mp4');
      const result = await kit.transcode(fixture('hevc-rotated.mov'), out);
      const probe = await kit.probe(out, { declaredType: 'video/mp4' });
      expect(probe).toEqual(result);
      expect(probe).toMatchObject({
        container: 'mp4',
        videoCodec: 'h264',
        videoProfile: 'High',
        pixelFormat: 'yuv420p',
        audioCodec: 'aac',
        width: 720,
        height: 1280,
        rotation: 0,
        frameRate: 30,
        faststart: true,
      });
      expect(Math.abs(probe.durationMs - 1000)).toBeLessThan(100);
      const layout = await readBoxLayout(out);
      expect(layout.moovAt!).toBeLessThan(layout.mdatAt!);
    });

    it('transcodes VP9/Opus and silent VP8 WebM to MP4', async () => {
      const withAudio = await kit.transcode(fixture('vp9-opus.webm'), join(dir, 'from-vp9.mp4'));
      expect(withAudio).toMatchObject({
        mimeType: 'video/mp4',
        videoCodec: 'h264',
        audioCodec: 'aac',
        width: 320,
        height: 240,
        faststart: true,
      });
      const silent = await kit.transcode(fixture('vp8-silent.webm'), join(dir, 'from-vp8.mp4'));
      expect(silent).toMatchObject({ videoCodec: 'h264', audioCodec: null, faststart: true });
    });

    it('keeps within frame rate and size caps, keeping the shape', async () => {
      const result = await kit.transcode(fixture('vertical-9x16.mp4'), join(dir, 'capped.mp4'), {
        maxFrameRate: 30,
        maxLongSide: 320,
      });
      expect(result).toMatchObject({ videoCodec: 'h264', frameRate: 30, width: 180, height: 320, faststart: true });
      // A cap above the source changes nothing.
      const same = await kit.transcode(fixture('vertical-9x16.mp4'), join(dir, 'uncapped.mp4'), {
        maxFrameRate: 60,
        maxLongSide: 1920,
        maxShortSide: 1080,
      });
      expect(same).toMatchObject({ frameRate: 60, width: 288, height: 512 });
    });

    it('keeps under a bitrate cap', async () => {
      // 8 s of a detailed pattern: long enough for the encoder's rate control to settle.
      const source = join(dir, 'detailed.mp4');
      const made = await runTool(
        'ffmpeg',
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-nostdin',
          '-f',
          'lavfi',
          '-i',
          'testsrc2=size=640x360:rate=30:duration=8',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-crf',
          '18',
          source,
        ],
        { timeoutMs: 60_000 },
      );
      expect(made.code).toBe(0);
      const free = await kit.transcode(source, join(dir, 'free.mp4'));
      expect(free.bitrate!).toBeGreaterThan(500_000);
      const capped = await kit.transcode(source, join(dir, 'capped-rate.mp4'), { maxBitrate: 300_000 });
      expect(capped.bitrate!).toBeLessThanOrEqual(300_000);
      expect(capped.bitrate!).toBeGreaterThan(150_000);
    });

    it('moves the index to the front without re-encoding (remux)', async () => {
      const out = join(dir, 'remuxed.mp4');
      const result = await kit.remux(fixture('h264-moov-at-end.mp4'), out);
      expect(result).toMatchObject({
        mimeType: 'video/mp4',
        videoCodec: 'h264',
        audioCodec: 'aac',
        faststart: true,
        durationMs: 2000,
      });
      expect(await videoPacketHashes(out)).toEqual(await videoPacketHashes(fixture('h264-moov-at-end.mp4')));
      const mov = await kit.remux(fixture('hevc-rotated.mov'), join(dir, 'remuxed.mov'));
      expect(mov).toMatchObject({
        mimeType: 'video/quicktime',
        videoCodec: 'hevc',
        rotation: 270,
        width: 720,
        height: 1280,
        faststart: true,
      });
      await expect(kit.remux(fixture('vp9-opus.webm'), join(dir, 'x.webm'))).rejects.toThrow(VideoConversionError);
    });

    it('kills ffmpeg when a conversion runs out of time and leaves no file behind', async () => {
      const probe = await kit.probe(fixture('hevc-rotated.mov'));
      const sub = await mkdtemp(join(dir, 'timeout-'));
      const out = join(sub, 'never.mp4');
      const err = await kit
        .transcode(fixture('hevc-rotated.mov'), out, {}, { probe, timeoutMs: 50 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VideoToolTimeoutError);
      // What was left of the 50 ms when ffmpeg started (the temporary folder is made first).
      expect(err).toMatchObject({ tool: 'ffmpeg', timeoutMs: expect.any(Number) });
      expect((err as VideoToolTimeoutError).timeoutMs).toBeLessThanOrEqual(50);
      expect(alive((err as VideoToolTimeoutError).pid!)).toBe(false);
      expect(await readdir(sub)).toEqual([]);
    });
  });

  describe('availability', () => {
    it('finds Debian’s ffprobe and ffmpeg', async () => {
      const status = await kit.checkTools();
      expect(status).toMatchObject({ available: true, problem: null });
      expect(status.ffprobe.version).toMatch(/^ffprobe version /);
      expect(status.ffmpeg.version).toMatch(/^ffmpeg version /);
      expect(await kit.isAvailable()).toBe(true);
    });

    it('reports video processing unavailable, with the reason, when a binary is missing', async () => {
      const missing = new VideoToolkit({ ...CONFIG, ffprobePath: '/nonexistent/bin/ffprobe' });
      expect(await missing.isAvailable()).toBe(false);
      const status = await missing.checkTools();
      expect(status).toMatchObject({ available: false, ffprobe: { path: '/nonexistent/bin/ffprobe', version: null } });
      expect(status.problem).toMatch(
        /^Video processing is unavailable on this server: ffprobe cannot be started \(ENOENT\)/,
      );
      await expect(missing.probe(fixture('h264-aac-faststart.mp4'))).rejects.toMatchObject({
        reason: 'unavailable',
        inputProblem: false,
      });
    });

    it('reads its settings from the video configuration namespace', () => {
      expect(() => new VideoToolkit(videoConfig())).not.toThrow();
    });
  });
});
