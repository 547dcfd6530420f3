import { Browser, BrowserContext, Page } from 'playwright-core';
import { UsersService } from '../../src/users/users.service';
import { TestApp } from '../support/test-app';

export const OWNER_PASSWORD = 'owner password 123';

/** A printed link (CONSOLE_URL's origin) pointed at the test server. */
export function localLink(t: TestApp, link: string): string {
  const u = new URL(link);
  return `${t.baseUrl}${u.pathname}${u.search}`;
}

/**
 * A browser context signed in to the console as a member of the workspace: an invitation link made
 * by the same service as the Members page, accepted in the browser.
 */
export async function consoleSession(
  t: TestApp,
  browser: Browser,
  o: {
    workspaceId: string;
    email: string;
    role?: 'owner' | 'approver' | 'member';
    viewport?: { width: number; height: number };
  },
): Promise<{ context: BrowserContext; page: Page }> {
  const { url } = await t.app.get(UsersService).createLink('invitation', o.workspaceId, o.email, o.role ?? 'owner');
  const context = await browser.newContext({ viewport: o.viewport ?? { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(5_000);
  await page.goto(localLink(t, url));
  await page.locator('input[name="password"]').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  await page.waitForURL('**/console/keys');
  return { context, page };
}
