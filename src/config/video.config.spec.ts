import { videoConfig } from './video.config';

/** Runs `read` with these variables set (undefined: unset), then restores the environment. */
function withEnv<T>(vars: Record<string, string | undefined>, read: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return read();
  } finally {
    apply(saved);
  }
}

const UNSET = {
  FFPROBE_PATH: undefined,
  FFMPEG_PATH: undefined,
  VIDEO_PROBE_TIMEOUT_SECONDS: undefined,
  VIDEO_CONVERT_TIMEOUT_SECONDS: undefined,
  VIDEO_FFMPEG_THREADS: undefined,
  VIDEO_X264_PRESET: undefined,
  MEDIA_MAX_VIDEO_BYTES: undefined,
  MEDIA_VIDEO_CONCURRENCY: undefined,
  MEDIA_VIDEO_TRANSCODE: undefined,
  VIDEO_PROCESSING_MAX_WAIT_SECONDS: undefined,
  VIDEO_MAX_PIXELS: undefined,
  VIDEO_MAX_DIMENSION: undefined,
};

describe('video configuration', () => {
  it('finds ffprobe and ffmpeg on PATH by default, with bounded time and two threads', () => {
    expect(withEnv(UNSET, videoConfig)).toEqual({
      ffprobePath: 'ffprobe',
      ffmpegPath: 'ffmpeg',
      probeTimeoutMs: 30_000,
      convertTimeoutMs: 3_600_000,
      threads: 2,
      x264Preset: 'veryfast',
      maxVideoBytes: 4 * 1024 ** 3,
      concurrency: 2,
      transcode: true,
      processingMaxWaitMs: 1_800_000,
      maxPixels: 4096 * 2304,
      maxDimension: 4096,
    });
  });

  it('takes absolute paths, timeouts in seconds, a thread count and an x264 preset', () => {
    const cfg = withEnv(
      {
        ...UNSET,
        FFPROBE_PATH: '/opt/ffmpeg 7/bin/ffprobe',
        FFMPEG_PATH: '/opt/ffmpeg 7/bin/ffmpeg',
        VIDEO_PROBE_TIMEOUT_SECONDS: '5',
        VIDEO_CONVERT_TIMEOUT_SECONDS: '600',
        VIDEO_FFMPEG_THREADS: '0',
        VIDEO_X264_PRESET: 'medium',
      },
      videoConfig,
    );
    expect(cfg).toMatchObject({
      ffprobePath: '/opt/ffmpeg 7/bin/ffprobe',
      ffmpegPath: '/opt/ffmpeg 7/bin/ffmpeg',
      probeTimeoutMs: 5000,
      convertTimeoutMs: 600_000,
      threads: 0,
      x264Preset: 'medium',
    });
  });

  it('refuses option-like binaries, unknown presets and out-of-range numbers, naming the variable', () => {
    expect(() => withEnv({ ...UNSET, FFPROBE_PATH: '-i' }, videoConfig)).toThrow(/FFPROBE_PATH/);
    expect(() => withEnv({ ...UNSET, FFMPEG_PATH: 'ffmpeg\n-y' }, videoConfig)).toThrow(/FFMPEG_PATH/);
    expect(() => withEnv({ ...UNSET, VIDEO_X264_PRESET: 'placebo' }, videoConfig)).toThrow(/VIDEO_X264_PRESET/);
    expect(() => withEnv({ ...UNSET, VIDEO_PROBE_TIMEOUT_SECONDS: '0' }, videoConfig)).toThrow(
      /VIDEO_PROBE_TIMEOUT_SECONDS/,
    );
    expect(() => withEnv({ ...UNSET, VIDEO_FFMPEG_THREADS: 'many' }, videoConfig)).toThrow(/VIDEO_FFMPEG_THREADS/);
  });
});
