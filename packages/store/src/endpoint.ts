// Parses --datastore-endpoint the way k3s/kine do: "<scheme>://<dsn>", where for sqlite the DSN is a
// file path (so sqlite:///abs/state.db is absolute and sqlite://db/state.db is relative to the working
// directory) optionally followed by go-sqlite3 style "?_name=value" options.

export type Synchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';

export type Endpoint =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string; synchronous?: Synchronous; busyTimeoutMs?: number };

/** kine's default when the endpoint is empty or "sqlite://" with no path. */
export const DEFAULT_SQLITE_PATH = './db/state.db';

export class EndpointError extends Error {
  constructor(
    readonly endpoint: string,
    reason: string,
  ) {
    super(`invalid --datastore-endpoint "${endpoint}": ${reason}`);
    this.name = 'EndpointError';
  }
}

const SYNC_VALUES: Record<string, Synchronous> = {
  '0': 'OFF', off: 'OFF', '1': 'NORMAL', normal: 'NORMAL', '2': 'FULL', full: 'FULL', '3': 'EXTRA', extra: 'EXTRA',
};

export function parseEndpoint(endpoint: string): Endpoint {
  const trimmed = endpoint.trim();
  if (trimmed === '') return { kind: 'sqlite', path: DEFAULT_SQLITE_PATH };
  const sep = trimmed.indexOf('://');
  if (sep < 0) throw new EndpointError(endpoint, 'expected <scheme>://..., e.g. sqlite:///var/lib/kemu/state.db or memory://');
  const scheme = trimmed.slice(0, sep).toLowerCase();
  const rest = trimmed.slice(sep + 3);
  switch (scheme) {
    case 'memory':
      if (rest !== '') throw new EndpointError(endpoint, 'memory:// takes no path');
      return { kind: 'memory' };
    case 'sqlite':
      return parseSqlite(endpoint, rest);
    default: {
      const etcd = scheme === 'etcd' || scheme === 'http' || scheme === 'https' ? '; for etcd use --etcd-servers' : '';
      throw new EndpointError(endpoint, `unsupported datastore "${scheme}" (supported: sqlite, memory)${etcd}`);
    }
  }
}

function parseSqlite(endpoint: string, dsn: string): Endpoint {
  const q = dsn.indexOf('?');
  const path = (q < 0 ? dsn : dsn.slice(0, q)) || DEFAULT_SQLITE_PATH;
  const out: { kind: 'sqlite'; path: string; synchronous?: Synchronous; busyTimeoutMs?: number } = { kind: 'sqlite', path };
  if (q < 0) return out;
  for (const [name, value] of new URLSearchParams(dsn.slice(q + 1))) {
    switch (name) {
      case '_synchronous':
      case '_sync': {
        const s = SYNC_VALUES[value.toLowerCase()];
        if (!s) throw new EndpointError(endpoint, `${name} must be OFF, NORMAL, FULL or EXTRA`);
        out.synchronous = s;
        break;
      }
      case '_busy_timeout':
      case '_timeout': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 0) throw new EndpointError(endpoint, `${name} must be a non-negative integer (ms)`);
        out.busyTimeoutMs = n;
        break;
      }
      case '_journal':
      case '_journal_mode':
        if (value.toUpperCase() !== 'WAL') throw new EndpointError(endpoint, `${name}: only WAL is supported`);
        break;
      case 'cache':
      case '_txlock':
      case '_fk':
      case '_foreign_keys':
        // Accepted for compatibility with kine's DSNs; kemu always uses WAL + BEGIN IMMEDIATE.
        break;
      default:
        throw new EndpointError(endpoint, `unsupported option "${name}"`);
    }
  }
  return out;
}
