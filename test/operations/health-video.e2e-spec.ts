/**
 * GET /api/health reports whether ffprobe/ffmpeg answer (`checks.video`) without depending on them:
 * a server whose video tools are missing is still healthy for images, and asking stays fast.
 */
import { TestApp } from '../support/test-app';

describe('health and video tools', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start({ env: { FFPROBE_PATH: '/nonexistent/ffprobe' } });
  });
  afterAll(() => t?.close());

  it('says video is down when ffprobe cannot be started, and stays ok (and quick) for the rest', async () => {
    const started = Date.now();
    const res = await t.request('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up', video: 'down' } });
    const again = Date.now();
    expect((await t.request('GET', '/api/health')).body.checks.video).toBe('down');
    // The tools were checked once: later health checks start no process.
    expect(Date.now() - again).toBeLessThan(500);
    expect(again - started).toBeLessThan(5000);
  });
});
