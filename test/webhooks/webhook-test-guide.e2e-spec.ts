import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * `POST /webhooks/{id}/test` sends to a paused or disabled endpoint by design (webhook-delivery.e2e-spec
 * checks that it does): the guide says so, so nobody mistakes it for a delivery that should not happen.
 */
describe('the guide on the webhook test endpoint', () => {
  it('says the test event is sent to a paused or disabled endpoint too, and when it is refused', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## 9. Events and webhooks'), guide.indexOf('## 10. Analytics'));
    const flat = section.replace(/\s+/g, ' ');
    const start = flat.indexOf('`POST /api/webhooks/{id}/test`');
    const sentence = start < 0 ? '' : flat.slice(start, flat.indexOf('`POST /api/webhooks/{id}/rotate-secret`', start));
    expect(sentence).toMatch(/paused/);
    expect(sentence).toMatch(/disabled/);
    expect(sentence).toMatch(/by design/);
    expect(sentence).toMatch(/409/);
  });
});
