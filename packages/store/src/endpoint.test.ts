import { describe, expect, it } from 'vitest';
import { DEFAULT_SQLITE_PATH, EndpointError, parseEndpoint } from './endpoint.ts';

describe('parseEndpoint (--datastore-endpoint, k3s/kine syntax)', () => {
  const ok: Array<[string, unknown]> = [
    ['sqlite:///var/lib/kemu/state.db', { kind: 'sqlite', path: '/var/lib/kemu/state.db' }],
    ['sqlite://db/state.db', { kind: 'sqlite', path: 'db/state.db' }],
    ['sqlite://', { kind: 'sqlite', path: DEFAULT_SQLITE_PATH }],
    ['', { kind: 'sqlite', path: DEFAULT_SQLITE_PATH }],
    ['sqlite:///d/s.db?_journal=WAL&cache=shared&_busy_timeout=30000', { kind: 'sqlite', path: '/d/s.db', busyTimeoutMs: 30000 }],
    ['sqlite:///d/s.db?_synchronous=FULL', { kind: 'sqlite', path: '/d/s.db', synchronous: 'FULL' }],
    ['memory://', { kind: 'memory' }],
  ];
  it.each(ok)('%s', (input, want) => {
    expect(parseEndpoint(input)).toEqual(want);
  });

  const bad = ['/var/lib/state.db', 'mysql://u@tcp(h)/db', 'http://127.0.0.1:2379', 'sqlite:///d.db?_journal=DELETE', 'sqlite:///d.db?foo=1', 'memory://x'];
  it.each(bad)('rejects %s', (input) => {
    expect(() => parseEndpoint(input)).toThrow(EndpointError);
  });
});
