import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface DevCertificate {
  cert: string;
  key: string;
}

/**
 * A self-signed certificate for `localhost`, `127.0.0.1` and `::1`, valid for a year: enough for
 * the local HTTPS environment (TLS_CERT_FILE/TLS_KEY_FILE). Generated with Node's own crypto
 * through `selfsigned`, so no OpenSSL install is needed.
 */
export async function generateDevCertificate(days = 365): Promise<DevCertificate> {
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + days * 24 * 60 * 60 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** Writes `localhost.pem` and `localhost-key.pem` (key readable by the owner only) into `dir`. */
export async function writeDevCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  const { cert, key } = await generateDevCertificate();
  const certFile = join(dir, 'localhost.pem');
  const keyFile = join(dir, 'localhost-key.pem');
  mkdirSync(dir, { recursive: true });
  writeFileSync(certFile, cert);
  writeFileSync(keyFile, key, { mode: 0o600 });
  return { certFile, keyFile };
}

/** `npm run dev:cert [dir]`: writes the local certificate (default directory ./certs). */
async function main(): Promise<void> {
  const { certFile, keyFile } = await writeDevCertificate(process.argv[2] ?? 'certs');
  process.stdout.write(
    `Wrote ${certFile} and ${keyFile}. Start over HTTPS with:\n` +
      `  TLS_CERT_FILE=${certFile} TLS_KEY_FILE=${keyFile} npm run start\n`,
  );
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
}
