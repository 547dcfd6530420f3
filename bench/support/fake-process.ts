import { fork } from 'node:child_process';
import { join } from 'node:path';
import { MastodonFake } from '../../test/fakes/mastodon.fake';

/**
 * Runs a provider fake in a child process, as a real network peer would be: its CPU is then not
 * taken from the process under test (the same for our service and for the bare baseline).
 */
export async function startMastodonFakeProcess(tokens: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = fork(join(__dirname, 'fake-process.js'), ['--child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`fake exited with ${code}`)));
    child.send({ tokens });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv.includes('--child')) {
  process.once('message', (m: { tokens: string[] }) => {
    const fake = new MastodonFake({ tokens: m.tokens, logRequests: false });
    void fake.start().then((url) => process.send?.({ url }));
    process.once('SIGTERM', () => void fake.stop().then(() => process.exit(0)));
  });
}
