// @kemu/store: the key-value store behind the apiserver.
// Guarantees, for every backend: each write (create, update, delete) gets the next revision of one
// global, strictly increasing sequence (the resourceVersion); preconditions (key absent, expected
// revision) are checked atomically with the write; a write's promise resolves only after it is
// committed; lists are consistent at one revision, also across continue pages at that revision;
// watches deliver every matching write after their start revision in revision order, with no gap and
// no duplicate; revisions below the compact revision fail with CompactedError.
// EtcdBackend keeps them on an etcd v3 cluster (--etcd-servers), where etcd's revision is the sequence.
// SqliteBackend extends this to several processes sharing one file: they see one sequence, and each
// sees the others' writes on its watches within milliseconds.
import type { Logger } from '@kemu/base';
import type { Backend } from './backend.ts';
import { parseEndpoint } from './endpoint.ts';
import { MemoryBackend } from './memory.ts';
import { SqliteBackend, type SqliteOptions } from './sqlite.ts';
import { EtcdBackend } from './etcd/backend.ts';
import { parseEtcdServers, type EtcdTls } from './etcd/client.ts';

export * from './backend.ts';
export { MemoryBackend } from './memory.ts';
export { SqliteBackend, type SqliteOptions } from './sqlite.ts';
export { parseEndpoint, EndpointError, DEFAULT_SQLITE_PATH, type Endpoint, type Synchronous } from './endpoint.ts';
export { StoreBusyError } from './sqlite/writer.ts';
export { EtcdBackend, type EtcdOptions } from './etcd/backend.ts';
export { parseEtcdServers, type EtcdServer, type EtcdTls } from './etcd/client.ts';

/** kube-apiserver's etcd flags: --etcd-servers (comma-separated URLs), --etcd-prefix, --etcd-cafile/certfile/keyfile. */
export interface EtcdSelection extends EtcdTls {
  servers: string;
  prefix?: string;
}

export type OpenOptions = Omit<SqliteOptions, 'path'> & { logger?: Logger; etcd?: EtcdSelection };

/**
 * Open the store named by a --datastore-endpoint string: "sqlite:///abs/path/state.db",
 * "sqlite://relative/state.db" (k3s/kine style, "?_synchronous=FULL" etc. accepted) or "memory://".
 * Throws EndpointError for anything else. With opts.etcd, the endpoint is ignored and the store is etcd v3.
 */
export async function openBackend(endpoint: string, opts: OpenOptions = {}): Promise<Backend> {
  if (opts.etcd) {
    const { servers, prefix, caFile, certFile, keyFile } = opts.etcd;
    return new EtcdBackend({
      servers: parseEtcdServers(servers),
      ...(prefix !== undefined ? { prefix } : {}),
      ...(caFile ? { caFile } : {}),
      ...(certFile ? { certFile } : {}),
      ...(keyFile ? { keyFile } : {}),
      ...(opts.compactIntervalMs !== undefined ? { compactIntervalMs: opts.compactIntervalMs } : {}),
      ...(opts.healthCheckTimeoutMs !== undefined ? { healthCheckTimeoutMs: opts.healthCheckTimeoutMs } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }
  const ep = parseEndpoint(endpoint);
  if (ep.kind === 'memory') return new MemoryBackend();
  return new SqliteBackend({
    ...opts,
    path: ep.path,
    ...(ep.synchronous ? { synchronous: ep.synchronous } : {}),
    ...(ep.busyTimeoutMs !== undefined ? { busyTimeoutMs: ep.busyTimeoutMs } : {}),
  });
}
