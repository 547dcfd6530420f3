import { SUNSET_WARNING_DAYS, apiVersionOf, graphVersionSunset, linkedInVersionSunset } from './api-version';
import { PROVIDER_PLUGINS } from './provider.list';

const DAY_MS = 86_400_000;

/**
 * The API versions this service pins, against the retirement dates their owners state. This spec
 * reads today's date on purpose: it starts failing SUNSET_WARNING_DAYS before a pinned version is
 * retired, so the suite says when to move (change the pin, and the plugin's fakes and docs/networks.md).
 */
describe('pinned network API versions', () => {
  it.each(PROVIDER_PLUGINS.map((p) => [p.id, p] as const))('%s names the version it calls and its source', (_, p) => {
    expect(p.apiVersion.pinned).toMatch(/\S/);
    expect(p.apiVersion.source).toMatch(/checked 2\d{3}-\d{2}-\d{2}|this service/);
  });

  it.each(PROVIDER_PLUGINS.filter((p) => p.apiVersion.sunset).map((p) => [p.id, p] as const))(
    `%s: the pinned version is not retired within ${SUNSET_WARNING_DAYS} days`,
    (_, p) => {
      const sunset = p.apiVersion.sunset?.(apiVersionOf(p.apiVersion, {}));
      expect(sunset).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const daysLeft = (Date.parse(`${sunset}T00:00:00Z`) - Date.now()) / DAY_MS;
      expect({ version: p.apiVersion.pinned, sunset, tooClose: daysLeft < SUNSET_WARNING_DAYS }).toEqual({
        version: p.apiVersion.pinned,
        sunset,
        tooClose: false,
      });
    },
  );

  it('knows the retirement rules it applies', () => {
    expect(graphVersionSunset('v25.0')).toBe('2028-07-29');
    expect(graphVersionSunset('v99.0')).toBeUndefined();
    expect(linkedInVersionSunset('202610')).toBe('2027-10-01');
    expect(linkedInVersionSunset('2026-10')).toBeUndefined();
    expect(apiVersionOf({ pinned: 'v25.0', setting: 'graphVersion', source: '' }, { graphVersion: 'v24.0' })).toBe(
      'v24.0',
    );
  });
});
