import { loggablePath } from './console-http';

describe('loggablePath', () => {
  it("hides a connect page's token, whatever follows it", () => {
    const token = `cl_${'a'.repeat(43)}`;
    expect(loggablePath(`/connect/${token}`)).toBe('/connect/{token}');
    expect(loggablePath(`/connect/${token}/sandbox`)).toBe('/connect/{token}/sandbox');
    expect(loggablePath('/console/connect-links')).toBe('/console/connect-links');
    expect(loggablePath('/api/connect-links/1')).toBe('/api/connect-links/1');
  });
});
