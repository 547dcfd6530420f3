import { logRecord, prettyLine } from './logger';

describe('log records', () => {
  const at = new Date('2026-11-23T10:00:00.000Z');

  it('carry an ISO timestamp and the standard level name', () => {
    expect(logRecord('log', 'Listening', 'Main', undefined, at)).toEqual({
      time: '2026-11-23T10:00:00.000Z',
      level: 'info',
      context: 'Main',
      msg: 'Listening',
    });
    expect(logRecord('verbose', 'x', undefined, undefined, at).level).toBe('trace');
    expect(logRecord('warn', 'x', undefined, undefined, at).level).toBe('warn');
  });

  it('spread object messages into fields and keep stacks', () => {
    expect(logRecord('error', { msg: 'Unhandled error', requestId: 'r1' }, 'HTTP', 'Error: boom\n  at x', at)).toEqual({
      time: '2026-11-23T10:00:00.000Z',
      level: 'error',
      context: 'HTTP',
      msg: 'Unhandled error',
      requestId: 'r1',
      stack: 'Error: boom\n  at x',
    });
  });

  it('read as one line at a terminal', () => {
    const record = logRecord('log', { msg: 'request', status: 200, path: '/api/health' }, 'HTTP', undefined, at);
    expect(prettyLine(record)).toBe('2026-11-23T10:00:00.000Z INFO  [HTTP] request status=200 path=/api/health');
  });
});
