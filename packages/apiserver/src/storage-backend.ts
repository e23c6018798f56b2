// Which store kube-apiserver opens, from Kubernetes' storage flags: --etcd-servers (with --etcd-prefix and
// the --etcd-cafile/--etcd-certfile/--etcd-keyfile TLS files) selects etcd v3; without it the store is
// kemu's --datastore-endpoint (SQLite by default, k3s style). --storage-backend accepts only etcd3, as
// Kubernetes does, and then needs --etcd-servers.
import type { EtcdSelection } from '@kemu/store';

export interface StorageFlags {
  'storage-backend': string;
  'etcd-servers': readonly string[];
  'etcd-prefix': string;
  'etcd-cafile': string;
  'etcd-certfile': string;
  'etcd-keyfile': string;
  'datastore-endpoint': string;
}

export type StorageChoice = { kind: 'etcd3'; etcd: EtcdSelection } | { kind: 'datastore'; endpoint: string };

/** The store the flags select, or the errors kube-apiserver prints for them (exit code 1 at validation). */
export function chooseStorage(f: StorageFlags): StorageChoice | { errors: string[] } {
  const errors: string[] = [];
  const backend = f['storage-backend'];
  if (backend !== '' && backend !== 'etcd3') {
    errors.push(`--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'`);
  }
  const servers = f['etcd-servers'].map((s) => s.trim()).filter((s) => s !== '');
  if (backend === 'etcd3' && servers.length === 0) errors.push('--etcd-servers must be specified');
  if (servers.length > 0 && f['datastore-endpoint'] !== '') {
    errors.push('--datastore-endpoint (kine-style SQLite or memory) and --etcd-servers cannot be used together');
  }
  if (!!f['etcd-certfile'] !== !!f['etcd-keyfile']) errors.push('--etcd-certfile and --etcd-keyfile must be given together');
  if (servers.length > 0 && !f['etcd-prefix'].startsWith('/')) errors.push(`--etcd-prefix must start with "/": "${f['etcd-prefix']}"`);
  if (errors.length > 0) return { errors };
  if (servers.length === 0) return { kind: 'datastore', endpoint: f['datastore-endpoint'] };
  const etcd: EtcdSelection = { servers: servers.join(','), prefix: f['etcd-prefix'] };
  if (f['etcd-cafile']) etcd.caFile = f['etcd-cafile'];
  if (f['etcd-certfile']) etcd.certFile = f['etcd-certfile'];
  if (f['etcd-keyfile']) etcd.keyFile = f['etcd-keyfile'];
  return { kind: 'etcd3', etcd };
}
