import { envExampleLines, readSettings, setting, settingsOf } from './settings';
import { ConfigValidationError } from './validate-env';

describe('declared settings', () => {
  const spec = {
    id: setting.text('EXAMPLE_CLIENT_ID', 'the app id'),
    host: setting.url('EXAMPLE_API_BASE_URL', 'override of https://api.example.com'),
    version: setting.matches('EXAMPLE_VERSION', {
      pattern: /^\d{6}$/,
      message: 'must be a version in YYYYMM format',
      default: '202610',
      description: 'API version',
    }),
    scopes: setting.list('EXAMPLE_SCOPES', {
      pattern: /^\w+( \w+)*$/,
      message: 'must be scope names separated by single spaces',
      separator: ' ',
      description: 'scopes\n(second line)',
    }),
    pollMs: setting.int('EXAMPLE_POLL_MS', { default: 1000, min: 10, max: 60_000, description: 'pause' }),
    enabled: setting.bool('EXAMPLE_ENABLED', { default: true, description: 'switch' }),
  };
  const read = (env: Record<string, string>) => settingsOf(spec, readSettings(Object.values(spec), env));

  it('gives the defaults when variables are unset or empty', () => {
    expect(read({ EXAMPLE_CLIENT_ID: '', EXAMPLE_POLL_MS: '' })).toEqual({
      id: null,
      host: null,
      version: '202610',
      scopes: null,
      pollMs: 1000,
      enabled: true,
    });
  });

  it('converts what is set: numbers, booleans, lists, hosts without their trailing slash', () => {
    expect(
      read({
        EXAMPLE_CLIENT_ID: 'abc',
        EXAMPLE_API_BASE_URL: 'http://127.0.0.1:8080/',
        EXAMPLE_VERSION: '202701',
        EXAMPLE_SCOPES: 'read write',
        EXAMPLE_POLL_MS: '20',
        EXAMPLE_ENABLED: 'off',
      }),
    ).toEqual({
      id: 'abc',
      host: 'http://127.0.0.1:8080',
      version: '202701',
      scopes: ['read', 'write'],
      pollMs: 20,
      enabled: false,
    });
  });

  it('refuses bad values, naming every variable', () => {
    expect(() =>
      read({
        EXAMPLE_API_BASE_URL: 'ftp://x',
        EXAMPLE_VERSION: '26',
        EXAMPLE_POLL_MS: '1.5',
        EXAMPLE_ENABLED: 'maybe',
      }),
    ).toThrow(ConfigValidationError);
    try {
      read({ EXAMPLE_SCOPES: 'a  b', EXAMPLE_POLL_MS: '5' });
    } catch (err) {
      expect((err as ConfigValidationError).problems).toEqual([
        'EXAMPLE_SCOPES="a  b": must be scope names separated by single spaces',
        'EXAMPLE_POLL_MS="5": EXAMPLE_POLL_MS must not be less than 10',
      ]);
    }
    expect.assertions(2);
  });

  it('reads a variable two readers declare once, and refuses two different declarations of it', () => {
    expect(readSettings([spec.pollMs, spec.pollMs], { EXAMPLE_POLL_MS: '30' }).get('EXAMPLE_POLL_MS')).toBe(30);
    const other = setting.int('EXAMPLE_POLL_MS', { default: 5, description: 'another' });
    expect(() => readSettings([spec.pollMs, other], {})).toThrow(/EXAMPLE_POLL_MS is declared twice/);
  });

  it('writes its lines of .env.example: the default, the description at column 32, further lines below', () => {
    expect(envExampleLines(spec.version)).toEqual([`EXAMPLE_VERSION=202610`.padEnd(32) + '# API version']);
    expect(envExampleLines(spec.scopes)).toEqual([
      'EXAMPLE_SCOPES='.padEnd(32) + '# scopes',
      ' '.repeat(32) + '# (second line)',
    ]);
    expect(envExampleLines(setting.text('EXAMPLE_CLIENT_SECRET'))).toEqual(['EXAMPLE_CLIENT_SECRET=']);
    expect(envExampleLines(setting.int('EXAMPLE_A_RATHER_LONG_NAME_MS', { default: 1, description: 'x' }))).toEqual([
      'EXAMPLE_A_RATHER_LONG_NAME_MS=1  # x',
    ]);
  });
});
