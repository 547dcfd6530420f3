/**
 * The S3-compatible server the tests use: `@20minutes/s3rver` on 127.0.0.1 with a temporary folder (it checks
 * request signatures and speaks multipart upload), started once per run by the global setup. Set
 * TEST_S3_ENDPOINT (+ TEST_S3_BUCKET, TEST_S3_REGION, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY,
 * TEST_S3_FORCE_PATH_STYLE) to run the same tests against MinIO or AWS instead; the bucket must exist.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCAL_BUCKET = 'sps-test';
const LOCAL_CREDENTIAL = 'S3RVER'; // s3rver's built-in account

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

export interface StartedS3Server {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startS3Server(): Promise<StartedS3Server> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('@20minutes/s3rver') as new (options: Record<string, unknown>) => S3rverInstance;
  const directory = await mkdtemp(join(tmpdir(), 'sps-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: LOCAL_BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The app's environment for MEDIA_STORAGE=s3 against the run's S3 server (or TEST_S3_ENDPOINT). */
export function testS3Env(): Record<string, string> {
  const external = process.env.TEST_S3_ENDPOINT;
  const endpoint = external ?? process.env.SPS_TEST_S3_ENDPOINT;
  if (!endpoint) throw new Error('No S3 server: the global setup did not start one and TEST_S3_ENDPOINT is unset');
  return {
    MEDIA_STORAGE: 's3',
    S3_ENDPOINT: endpoint,
    S3_REGION: (external && process.env.TEST_S3_REGION) || 'us-east-1',
    S3_BUCKET: (external && process.env.TEST_S3_BUCKET) || LOCAL_BUCKET,
    S3_ACCESS_KEY_ID: (external && process.env.TEST_S3_ACCESS_KEY_ID) || LOCAL_CREDENTIAL,
    S3_SECRET_ACCESS_KEY: (external && process.env.TEST_S3_SECRET_ACCESS_KEY) || LOCAL_CREDENTIAL,
    S3_FORCE_PATH_STYLE: (external && process.env.TEST_S3_FORCE_PATH_STYLE) || 'true',
  };
}
