import {
  PacketEndTracker,
  parseClockDuration,
  parseRational,
  rotationOf,
  toVideoProbe,
  type FfprobeJson,
  type FfprobeStream,
} from './ffprobe-output';
import { VideoNoVideoStreamError, VideoUndecodableError } from './video.errors';

const CTX = { container: 'mp4' as const, sizeBytes: 1_000_000, faststart: true };

/** What ffprobe prints for a phone's portrait video: landscape frames, a display matrix of -90. */
function phoneVideo(overrides: Partial<FfprobeStream> = {}): FfprobeJson {
  return {
    streams: [
      {
        index: 0,
        codec_type: 'video',
        codec_name: 'hevc',
        profile: 'Main',
        width: 1920,
        height: 1080,
        pix_fmt: 'yuv420p',
        sample_aspect_ratio: '1:1',
        avg_frame_rate: '30000/1001',
        r_frame_rate: '30/1',
        duration: '12.345000',
        bit_rate: '9000000',
        side_data_list: [{ side_data_type: 'Display Matrix', rotation: -90 }],
        ...overrides,
      },
      { index: 1, codec_type: 'audio', codec_name: 'aac', channels: 2, sample_rate: '44100' },
    ],
    format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '12.345000', size: '1000000', bit_rate: '648035' },
  };
}

describe('reading ffprobe output', () => {
  it('turns rational frame rates into numbers and refuses 0/0', () => {
    expect(parseRational('30000/1001')).toBeCloseTo(29.97, 2);
    expect(parseRational('25/1')).toBe(25);
    expect(parseRational('24')).toBe(24);
    expect(parseRational('0/0')).toBeNull();
    expect(parseRational(undefined)).toBeNull();
    expect(parseRational('abc')).toBeNull();
  });

  it("reads Matroska's per-track DURATION tags", () => {
    expect(parseClockDuration('00:00:02.007000000')).toBeCloseTo(2.007, 6);
    expect(parseClockDuration('01:02:03.5')).toBe(3723.5);
    expect(parseClockDuration('2.5')).toBeNull();
    expect(parseClockDuration(undefined)).toBeNull();
  });

  it('gives the clockwise rotation from the display matrix (counter-clockwise) or the old rotate tag', () => {
    expect(rotationOf({ side_data_list: [{ rotation: -90 }] })).toBe(90);
    expect(rotationOf({ side_data_list: [{ rotation: 90 }] })).toBe(270);
    expect(rotationOf({ side_data_list: [{ rotation: 180 }] })).toBe(180);
    expect(rotationOf({ side_data_list: [{ rotation: -180 }] })).toBe(180);
    expect(rotationOf({ side_data_list: [{ side_data_type: 'Spherical' }, { rotation: -270 }] })).toBe(270);
    expect(rotationOf({ tags: { rotate: '90' } })).toBe(90);
    expect(rotationOf({ tags: { rotate: '-90' } })).toBe(270);
    expect(rotationOf({})).toBe(0);
  });

  it('reports the size as displayed: a quarter turn swaps width and height', () => {
    const probe = toVideoProbe(phoneVideo(), CTX);
    expect(probe).toMatchObject({
      container: 'mp4',
      mimeType: 'video/mp4',
      width: 1080,
      height: 1920,
      codedWidth: 1920,
      codedHeight: 1080,
      rotation: 90,
      frameRate: 29.97,
      videoCodec: 'hevc',
      videoProfile: 'Main',
      pixelFormat: 'yuv420p',
      videoBitrate: 9_000_000,
      audioCodec: 'aac',
      audioChannels: 2,
      audioSampleRate: 44100,
      durationMs: 12345,
      bitrate: Math.round((1_000_000 * 8) / 12.345),
      faststart: true,
    });
  });

  it('stretches non-square pixels to their displayed width', () => {
    const dv = toVideoProbe(
      phoneVideo({ width: 720, height: 480, sample_aspect_ratio: '8:9', side_data_list: undefined }),
      CTX,
    );
    expect([dv.width, dv.height]).toEqual([640, 480]);
    expect([dv.codedWidth, dv.codedHeight]).toEqual([720, 480]);
  });

  it('skips cover pictures and uses the stream durations, size-based bitrate and r_frame_rate when the container lacks them', () => {
    const json: FfprobeJson = {
      streams: [
        { codec_type: 'video', codec_name: 'mjpeg', width: 600, height: 600, disposition: { attached_pic: 1 } },
        {
          codec_type: 'video',
          codec_name: 'vp9',
          width: 640,
          height: 360,
          avg_frame_rate: '0/0',
          r_frame_rate: '25/1',
          tags: { DURATION: '00:00:04.000000000' },
        },
      ],
      format: { format_name: 'matroska,webm' },
    };
    const probe = toVideoProbe(json, { container: 'webm', sizeBytes: 500_000, faststart: null });
    expect(probe).toMatchObject({
      videoCodec: 'vp9',
      width: 640,
      height: 360,
      frameRate: 25,
      durationMs: 4000,
      bitrate: 1_000_000,
      audioCodec: null,
      faststart: null,
      mimeType: 'video/webm',
    });
  });

  it('takes a measured duration when the container declares none', () => {
    const json = phoneVideo({ duration: undefined });
    delete json.format!.duration;
    expect(() => toVideoProbe(json, CTX)).toThrow(VideoUndecodableError);
    expect(toVideoProbe(json, CTX, 7.5).durationMs).toBe(7500);
  });

  it('refuses audio-only files, unknown codecs and tracks without a frame size', () => {
    const audioOnly: FfprobeJson = { streams: [{ codec_type: 'audio', codec_name: 'aac' }], format: {} };
    expect(() => toVideoProbe(audioOnly, CTX)).toThrow(VideoNoVideoStreamError);
    expect(() => toVideoProbe(audioOnly, CTX)).toThrow('The file has no video track: it holds only audio (aac)');
    expect(() => toVideoProbe({ streams: [], format: {} }, CTX)).toThrow(
      'The video cannot be decoded: ffprobe finds no track in it at all (its index may be damaged)',
    );
    expect(() => toVideoProbe(phoneVideo({ codec_name: 'none' }), CTX)).toThrow(/codec ffmpeg does not know/);
    expect(() => toVideoProbe(phoneVideo({ width: 0 }), CTX)).toThrow(/no frame size/);
  });

  it('follows packet lines split anywhere and keeps where the media data ends', () => {
    const tracker = new PacketEndTracker();
    const text = '1,-0.021333,0.021333\n0,0.000000,0.040000\n0,1.960000,0.040000\n1,1.984000,0.016000\n0,N/A,N/A\n';
    for (let i = 0; i < text.length; i += 7) tracker.push(Buffer.from(text.slice(i, i + 7)));
    tracker.push('0,1.920000,0.040000');
    tracker.finish();
    expect(tracker.packets).toBe(5);
    expect(tracker.end).toBeCloseTo(2.0, 6);
  });
});
