import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';

/** Debian's Chromium, never a downloaded browser (README: Test it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = join(__dirname, '..', '..', 'test-artifacts', 'console');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--headless'],
  });
}

/** Full-page screenshot kept as a test artifact (test-artifacts/console/NAME.png, gitignored). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
