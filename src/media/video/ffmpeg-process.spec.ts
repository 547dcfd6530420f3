import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLines, runTool, startTool } from './ffmpeg-process';
import { VideoConversionError, VideoToolTimeoutError, VideoToolUnavailableError } from './video.errors';

/** True while a process with this id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** ffmpeg encoding an endless test pattern to nowhere: runs until it is killed. */
const ENDLESS = [
  '-hide_banner',
  '-loglevel',
  'error',
  '-nostdin',
  '-re',
  '-f',
  'lavfi',
  '-i',
  'testsrc2',
  '-f',
  'null',
  '-',
];

describe('running ffprobe and ffmpeg as bounded child processes', () => {
  it('kills a child that outlives its time budget, and settles only once it is gone', async () => {
    const started = Date.now();
    const run = startTool('ffmpeg', ENDLESS, { timeoutMs: 300 });
    expect(run.pid).toBeDefined();
    const err = await run.done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VideoToolTimeoutError);
    expect((err as VideoToolTimeoutError).message).toBe('ffmpeg did not finish within 300 ms and was stopped');
    expect((err as VideoToolTimeoutError).pid).toBe(run.pid);
    expect(alive(run.pid!)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('kills a child whose output exceeds the cap', async () => {
    const run = startTool(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', 'testsrc2', '-f', 'rawvideo', 'pipe:1'],
      {
        timeoutMs: 20_000,
        maxStdoutBytes: 1024 * 1024,
      },
    );
    await expect(run.done).rejects.toThrow(VideoConversionError);
    await expect(run.done).rejects.toThrow('ffmpeg wrote more than 1048576 bytes of output');
    expect(alive(run.pid!)).toBe(false);
  });

  it('stops a child when the caller aborts', async () => {
    const controller = new AbortController();
    const run = startTool('ffmpeg', ENDLESS, { timeoutMs: 20_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(run.done).rejects.toThrow('shutting down');
    expect(alive(run.pid!)).toBe(false);
  });

  it('says video processing is unavailable when the binary cannot be started', async () => {
    const err = await runTool('/nonexistent/ffprobe', ['-version'], { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VideoToolUnavailableError);
    expect((err as Error).message).toBe(
      'Video processing is unavailable on this server: ffprobe cannot be started (ENOENT); ' +
        'install ffmpeg (Debian: apt-get install ffmpeg) or set FFPROBE_PATH and FFMPEG_PATH',
    );
  });

  it('passes arguments as they are, never through a shell', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sps-noshell-'));
    try {
      const marker = join(dir, 'marker');
      const result = await runTool(
        'ffprobe',
        ['-v', 'error', '-i', `file:${dir}/x.mp4; touch ${marker}`, `$(touch ${marker})`],
        {
          timeoutMs: 10_000,
          maxStdoutBytes: 1024,
        },
      );
      expect(result.code).not.toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('returns the exit status, stdout and the end of stderr of a child that finishes', async () => {
    const ok = await runTool('ffprobe', ['-hide_banner', '-version'], { timeoutMs: 10_000, maxStdoutBytes: 64 * 1024 });
    expect(ok.code).toBe(0);
    expect(ok.stdout.toString()).toMatch(/^ffprobe version /);
    const bad = await runTool('ffprobe', ['-v', 'error', '-i', 'file:/nonexistent.mp4'], { timeoutMs: 10_000 });
    expect(bad.code).not.toBe(0);
    expect(lastLines(bad.stderr)).toMatch(/No such file or directory/);
  });

  it('names no path of the server in the lines it keeps', () => {
    const stderr = [
      '[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0c1a3e8c0] moov atom not found',
      'file:/var/lib/sps/media/0b/0b6e/chunk-0: Invalid data found when processing input',
      "Error opening output '/tmp/sps-video-x1/.output.mp4.ab12.part': No space left on device",
      'Stream #0:0: Video: h264, yuv420p, 1920x1080, 30000/1001 fps',
    ].join('\n');
    const said = lastLines(stderr, 4, 1000);
    expect(said).not.toMatch(/\/var|\/tmp|sps-video|chunk-0/);
    expect(said).toContain('the file: Invalid data found when processing input');
    expect(said).toContain("Error opening output 'the file': No space left on device");
    expect(said).toContain('30000/1001 fps');
  });
});
