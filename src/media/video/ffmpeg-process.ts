import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { VideoConversionError, VideoToolTimeoutError, VideoToolUnavailableError } from './video.errors';

/** The end of stderr kept (ffmpeg says what went wrong last). */
const STDERR_TAIL_BYTES = 64 * 1024;

export interface ToolRunOptions {
  /** The child is killed (SIGKILL) after this long and the run fails with `VideoToolTimeoutError`. */
  timeoutMs: number;
  /**
   * Most stdout bytes kept; one more kills the child and fails the run. Ignored with `onStdout`, which
   * receives every chunk instead and keeps nothing.
   */
  maxStdoutBytes?: number;
  onStdout?: (chunk: Buffer) => void;
  /** True gives the child a stdin pipe (`ToolProcess.stdin`); otherwise stdin is /dev/null. */
  stdin?: boolean;
  /** Aborting kills the child; the run fails with the signal's reason. */
  signal?: AbortSignal;
}

export interface ToolResult {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  /** The last 64 KiB of stderr. */
  stderr: string;
}

export interface ToolProcess {
  readonly pid: number | undefined;
  /** The child's stdin when `stdin: true`. */
  readonly stdin: Writable | null;
  /** Settles once the process has exited and its pipes are closed; never rejects for a non-zero exit. */
  readonly done: Promise<ToolResult>;
  /** Kills the child (SIGKILL) if it still runs. */
  kill(): void;
}

/**
 * Starts ffprobe or ffmpeg with an argument vector (never a shell), bounded in time and in the output
 * it may produce. The promise settles only after the child is gone, so a caller that sees a timeout
 * knows the process no longer runs.
 */
export function startTool(binary: string, args: readonly string[], options: ToolRunOptions): ToolProcess {
  const tool = binary.split('/').pop() || binary;
  const child = spawn(binary, args, {
    shell: false,
    windowsHide: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // A child that exits before reading all of its input makes writes fail with EPIPE: the caller
  // learns about it from `done`, and the pipe error itself must not crash the process.
  child.stdin?.on('error', () => undefined);

  const done = new Promise<ToolResult>((resolve, reject) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let failure: Error | null = null;
    const fail = (err: Error) => {
      failure ??= err;
      kill();
    };

    const timer = setTimeout(
      () => fail(new VideoToolTimeoutError(tool, options.timeoutMs, child.pid)),
      options.timeoutMs,
    );
    const onAbort = () => fail(abortReason(options.signal));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      if (failure) return;
      if (options.onStdout) {
        try {
          options.onStdout(chunk);
        } catch (err) {
          fail(err instanceof Error ? err : new Error(String(err)));
        }
        return;
      }
      stdoutBytes += chunk.length;
      if (options.maxStdoutBytes !== undefined && stdoutBytes > options.maxStdoutBytes) {
        fail(new VideoConversionError(`${tool} wrote more than ${options.maxStdoutBytes} bytes of output`));
        return;
      }
      stdout.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      // Spawning failed (ENOENT, EACCES): there is no process and 'close' may not follow.
      const unavailable = new VideoToolUnavailableError(binary, err.code ?? err.message);
      failure ??= unavailable;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child.pid === undefined) reject(failure);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      resolve({ code, signal, stdout: Buffer.concat(stdout), stderr: stderr.toString('utf8') });
    });
  });
  return { pid: child.pid, stdin: child.stdin, done, kill };
}

/** `startTool` for a child that reads nothing: resolves with its exit status and output. */
export function runTool(binary: string, args: readonly string[], options: ToolRunOptions): Promise<ToolResult> {
  return startTool(binary, args, { ...options, stdin: false }).done;
}

/**
 * The last non-empty lines of ffmpeg's stderr, for an error message (at most `max` characters), with
 * absolute paths replaced by "the file".
 */
export function lastLines(stderr: string, lines = 3, max = 400): string {
  const text = stderr
    .split('\n')
    // `[matroska,webm @ 0x55d0c1a3e8c0] File ended prematurely`: the address says nothing to anyone.
    .map((l) => l.replace(/\[[^\]]* @ 0x[0-9a-f]+\]\s*/gi, '').trim())
    // Where the server keeps its files is nobody's business: `file:/var/lib/.../abc` reads "the file".
    .map((l) =>
      l.replace(/(?<=^|[\s'"(:])(?:file:)?\/[^\s'",;:)]+/g, 'the file').replace(/\bfile:the file/g, 'the file'),
    )
    .filter((l) => l.length > 0)
    .slice(-lines)
    .join('; ');
  return text.length > max ? `...${text.slice(text.length - max)}` : text;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('The video operation was aborted');
}
