import { Browser, Page } from 'playwright-core';
import { NostrRelayFake, testKey } from '../fakes/nostr.fake';
import { FAST_PUBLISHING_ENV } from '../support/publishing-env';
import { TestApp } from '../support/test-app';
import { launchChromium } from './browser';
import { consoleSession } from './console-session';

/** A credentials field that is a list (Nostr's relays) is a text area in the console, one value per line. */
describe('console: connecting Nostr with a list of relays', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let ws: { workspaceId: string; key: string };
  const one = new NostrRelayFake();
  const two = new NostrRelayFake();

  beforeAll(async () => {
    await one.start();
    await two.start();
    t = await TestApp.start({ env: { ...FAST_PUBLISHING_ENV } });
    ws = await t.createWorkspace('nostr-form');
    browser = await launchChromium();
    ({ page } = await consoleSession(t, browser, { workspaceId: ws.workspaceId, email: 'nostr@example.com' }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await one.stop();
    await two.stop();
  });

  it('takes the relays one per line and connects the key to both', async () => {
    await page.goto(`${t.baseUrl}/console/channels/connect/nostr`);
    await page.getByLabel('Private key').fill(testKey().hex);
    const relays = page.locator('textarea[name="credentials.relays"]');
    await relays.fill(`${one.relayUrl}\n${two.relayUrl}\n`);
    await page.getByRole('button', { name: 'Connect Nostr' }).click();
    await page.waitForURL('**/console/channels');
    const channels = (await t.request('GET', '/api/channels?provider=nostr', { key: ws.key })).body.data;
    expect(channels).toHaveLength(1);
    expect(channels[0]).toEqual(expect.objectContaining({ provider: 'nostr', status: 'active' }));
    // Both relays were asked for the account's profile at connect.
    expect(one.received.map((m) => m.type)).toContain('REQ');
    expect(two.received.map((m) => m.type)).toContain('REQ');
  });
});
