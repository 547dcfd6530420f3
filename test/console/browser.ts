import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Locator, Page, chromium } from 'playwright-core';

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

/** A phone's viewport: the narrowest width the console is checked at. */
export const PHONE = { width: 375, height: 812 };

/**
 * Checks that a page fits a phone's width: no horizontal scrolling of the page, every table cell,
 * link, button and form field on it inside the viewport, and each of `required` (the controls and
 * columns that matter on that page) present, visible and inside it too. A failure names the element.
 */
export async function expectFitsWidth(page: Page, required: Locator[] = []): Promise<void> {
  // Run in the page (the specs are compiled without the DOM's types, hence expressions as text).
  const width = await page.evaluate<number>('document.documentElement.clientWidth');
  const overflow = await page.evaluate<number>(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  );
  expect({ url: page.url(), horizontalOverflow: overflow }).toEqual({ url: page.url(), horizontalOverflow: 0 });
  const outside = await page.evaluate<string[]>(`(() => {
    const found = [];
    const selector = 'main td, main a, main button, main select, main input, main output, main textarea, nav a, header a, header button, header select';
    for (const el of document.querySelectorAll(selector)) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not rendered (hidden inputs)
      if (box.left < -0.5 || box.right > ${width} + 0.5) {
        const text = (el.textContent || '').trim().slice(0, 40);
        found.push(el.tagName.toLowerCase() + ' "' + text + '" at ' + Math.round(box.left) + '..' + Math.round(box.right));
      }
    }
    return found;
  })()`);
  expect({ url: page.url(), outside }).toEqual({ url: page.url(), outside: [] });
  for (const locator of required) {
    const count = await locator.count();
    expect({ required: String(locator), count: count > 0 }).toEqual({ required: String(locator), count: true });
    for (let i = 0; i < count; i++) {
      const box = await locator.nth(i).boundingBox();
      const inside = box !== null && box.width > 0 && box.x >= -0.5 && box.x + box.width <= width + 0.5;
      expect({ required: `${String(locator)} #${i}`, box, inside }).toEqual({
        required: `${String(locator)} #${i}`,
        box,
        inside: true,
      });
    }
  }
}
