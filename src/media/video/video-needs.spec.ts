import { fmtBitrate, fmtBytes, fmtRatio, videoNeeds } from './video-needs';
import type { VideoProbe, VideoRequirements } from './video.interface';

/** A 30 s vertical H.264/AAC MP4 from a phone, index first: what most networks take as is. */
function probe(overrides: Partial<VideoProbe> = {}): VideoProbe {
  return {
    container: 'mp4',
    mimeType: 'video/mp4',
    formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
    sizeBytes: 40 * 1024 * 1024,
    durationMs: 30_000,
    width: 1080,
    height: 1920,
    codedWidth: 1920,
    codedHeight: 1080,
    rotation: 90,
    frameRate: 29.97,
    videoCodec: 'h264',
    videoProfile: 'High',
    pixelFormat: 'yuv420p',
    videoBitrate: 10_000_000,
    audioCodec: 'aac',
    audioChannels: 2,
    audioSampleRate: 44100,
    bitrate: 10_200_000,
    faststart: true,
    ...overrides,
  };
}

/** Limits in the shape of a short-video network's. */
const REELS: VideoRequirements = {
  label: 'Instagram',
  mimeTypes: ['video/mp4', 'video/quicktime'],
  videoCodecs: ['h264', 'hevc'],
  audioCodecs: ['aac'],
  pixelFormats: ['yuv420p'],
  maxBytes: 300 * 1024 * 1024,
  minDurationSeconds: 3,
  maxDurationSeconds: 90,
  maxFrameRate: 60,
  minFrameRate: 23,
  maxBitrate: 25_000_000,
  minAspectRatio: 0.01,
  maxAspectRatio: 10,
  maxLongSide: 1920,
  faststart: true,
};

describe('videoNeeds', () => {
  it('takes a video within every limit as it is', () => {
    expect(videoNeeds(probe(), REELS)).toEqual({ ok: true, problems: [], fixes: [], conversion: 'none' });
    expect(videoNeeds(probe(), {})).toEqual({ ok: true, problems: [], fixes: [], conversion: 'none' });
  });

  it('states the limit of what no conversion fixes: duration, size, shape, resolution floor, slow frame rate', () => {
    const needs = videoNeeds(
      probe({ durationMs: 190_000, sizeBytes: 600 * 1024 * 1024, width: 1920, height: 1080, frameRate: 15 }),
      {
        ...REELS,
        label: 'X',
        maxDurationSeconds: 140,
        maxBytes: 512 * 1024 * 1024,
        minAspectRatio: 0.5625,
        maxAspectRatio: 1,
        minShortSide: 1200,
      },
    );
    expect(needs.ok).toBe(false);
    expect(needs.conversion).toBe('none');
    expect(needs.problems).toEqual([
      'video is 190 s long; X takes at most 140 s',
      'video is 600 MiB; X takes at most 512 MiB',
      'video is 1920x1080 (aspect ratio 16:9); X takes aspect ratios from 9:16 to 1:1',
      'video is 1920x1080; X takes at least 1200 px on the short side',
      'video is 15 fps; X takes at least 23 fps',
    ]);
    expect(videoNeeds(probe({ durationMs: 1500 }), REELS).problems).toEqual([
      'video is 1.5 s long; Instagram takes videos of at least 3 s',
    ]);
  });

  it('moves the index to the front (remux) when that is all that is wrong', () => {
    const needs = videoNeeds(probe({ faststart: false }), REELS);
    expect(needs).toEqual({
      ok: true,
      problems: [],
      fixes: ["the video's index (moov) is at the end of the file; Instagram needs it first, for progressive download"],
      conversion: 'remux',
    });
    // A network that fetches the whole file first does not care.
    expect(videoNeeds(probe({ faststart: false }), { ...REELS, faststart: false }).conversion).toBe('none');
  });

  it('transcodes a WebM, an HEVC video where only H.264 is taken, and what exceeds frame rate, bitrate or size', () => {
    const webm = videoNeeds(
      probe({ container: 'webm', mimeType: 'video/webm', videoCodec: 'vp9', audioCodec: 'opus', faststart: null }),
      REELS,
    );
    expect(webm).toEqual({
      ok: true,
      problems: [],
      fixes: [
        'video is WebM; Instagram takes MP4, QuickTime (MOV)',
        'video is encoded as VP9; Instagram takes H.264, HEVC (H.265)',
        'audio is Opus; Instagram takes AAC',
      ],
      conversion: 'transcode',
    });
    const heavy = videoNeeds(
      probe({
        videoCodec: 'hevc',
        pixelFormat: 'yuv420p10le',
        frameRate: 120,
        bitrate: 60_000_000,
        width: 2160,
        height: 3840,
        faststart: false,
      }),
      { ...REELS, label: 'X', videoCodecs: ['h264'] },
    );
    expect(heavy.conversion).toBe('transcode');
    expect(heavy.ok).toBe(true);
    expect(heavy.fixes).toEqual([
      'video is encoded as HEVC (H.265); X takes H.264',
      'video pixel format is yuv420p10le; X takes yuv420p',
      'video is 120 fps; X takes at most 60 fps',
      'video bitrate is 60 Mbit/s; X takes at most 25 Mbit/s',
      'video is 2160x3840; X takes at most 1920 px on the long side',
      "the video's index (moov) is at the end of the file; X needs it first, for progressive download",
    ]);
  });

  it('lets 29.97 fps pass a 30 fps limit and a silent video pass an audio codec list', () => {
    expect(videoNeeds(probe({ frameRate: 29.97 }), { maxFrameRate: 30 }).conversion).toBe('none');
    expect(videoNeeds(probe({ frameRate: 30.0 }), { maxFrameRate: 30 }).conversion).toBe('none');
    expect(videoNeeds(probe({ audioCodec: null }), { audioCodecs: ['aac'] }).conversion).toBe('none');
  });

  it('counts as problems what needs a transcode when the network takes no H.264/AAC MP4 either', () => {
    const needs = videoNeeds(probe({ container: 'quicktime', mimeType: 'video/quicktime', faststart: false }), {
      label: 'a WebM-only network',
      mimeTypes: ['video/webm'],
      faststart: true,
    });
    expect(needs).toEqual({
      ok: false,
      problems: ['video is QuickTime (MOV); a WebM-only network takes WebM'],
      fixes: [
        "the video's index (moov) is at the end of the file; a WebM-only network needs it first, for progressive download",
      ],
      conversion: 'remux',
    });
  });

  it('refuses what would need a conversion the server may not make', () => {
    const hevc = probe({ videoCodec: 'hevc' });
    const req: VideoRequirements = { label: 'X', videoCodecs: ['h264'], faststart: true };
    expect(videoNeeds(hevc, req, { allow: 'remux' })).toEqual({
      ok: false,
      problems: ['video is encoded as HEVC (H.265); X takes H.264 (this server does not convert videos)'],
      fixes: [],
      conversion: 'none',
    });
    expect(videoNeeds(probe({ faststart: false }), req, { allow: 'remux' }).conversion).toBe('remux');
    expect(videoNeeds(probe({ faststart: false }), req, { allow: 'none' }).ok).toBe(false);
  });

  it('writes sizes, bitrates and ratios the way people read them', () => {
    expect(fmtBytes(512 * 1024 * 1024)).toBe('512 MiB');
    expect(fmtBytes(4 * 1024 ** 3)).toBe('4 GiB');
    expect(fmtBytes(1536)).toBe('1.5 KiB');
    expect(fmtBitrate(25_000_000)).toBe('25 Mbit/s');
    expect(fmtBitrate(800_000)).toBe('800 kbit/s');
    expect(fmtRatio(9 / 16)).toBe('9:16');
    expect(fmtRatio(1280 / 720)).toBe('16:9');
    expect(fmtRatio(1080 / 1350)).toBe('4:5');
    expect(fmtRatio(1.91)).toBe('1.91:1');
  });
});
