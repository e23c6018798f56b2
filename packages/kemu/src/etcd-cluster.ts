// `kemu up --store etcd`: the lab's store as seed 003 runs it, a three-member etcd cluster (Debian's etcd-server
// binary) with mutual TLS from the lab's etcd PKI (@kemu/pki's ensureEtcdPki: pki/etcd-ca.pem, etcd.pem,
// etcd-key.pem), each member a supervised process on its own address of the lab's /24 (etcd-N on .4N) on etcd's
// ports 2379 (clients) and 2380 (peers), data in DIR/etcd/etcd-N, and the apiservers' --etcd-* flags pointing
// at all of them. Health comes from each member's plain-HTTP metrics listener (/health on 2381, as kubeadm's
// static pod probes it), since the client port asks for a client certificate.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { etcdPkiFiles, type EtcdPkiFiles } from '@kemu/pki';
import { labAddresses } from './addresses.ts';
import { pickPort } from './ports.ts';
import type { ComponentSpec } from './topology.ts';

export const STORES = ['sqlite', 'etcd'] as const;
export type StoreKind = (typeof STORES)[number];

/** etcd's own ports: clients, peers, and the metrics/health listener kubeadm gives it. */
export const ETCD_PORTS = { client: 2379, peer: 2380, metrics: 2381 } as const;

/** Why `kemu up --store etcd` cannot run here (no etcd binary), or undefined when it can. */
export function etcdUnavailable(bin = 'etcd'): string | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    return `--store etcd needs etcd, which is not installed (no "${bin}" on PATH): apt-get install etcd-server (Debian/Ubuntu), or run without --store (the lab's SQLite store)`;
  return undefined;
}

export interface EtcdClusterOptions {
  dataDir: string;
  /** The balancer's address; the members take .40, .41, … of its /24. */
  address: string;
  members: number;
  v: number;
}

export interface EtcdCluster {
  members: ComponentSpec[];
  /** Client URLs in member order, as --etcd-servers takes them. */
  servers: string[];
  /** The apiservers' store flags: every member, and seed 003's --etcd-cafile/certfile/keyfile. */
  apiserverFlags: string[];
  pki: EtcdPkiFiles;
}

/** The members' specs on the lab's addresses; etcd's ports when free there, else ports the kernel picks. */
export async function planEtcdCluster(o: EtcdClusterOptions, taken: Set<string>): Promise<EtcdCluster> {
  const addr = labAddresses(o.address, { etcd: o.members });
  const pki = etcdPkiFiles(o.dataDir);
  // A member's data remembers its peer URL: a restarted lab asks for the ports it had (etcd's own ones unless
  // they were taken at the first start).
  const remembered = path.join(o.dataDir, 'etcd', 'ports.json');
  let before: Record<string, { client: number; peer: number; metrics: number }> = {};
  try {
    before = JSON.parse(fs.readFileSync(remembered, 'utf8')) as typeof before;
  } catch {
    // first start
  }
  const planned: { name: string; address: string; client: number; peer: number; metrics: number }[] = [];
  for (let i = 0; i < o.members; i++) {
    const address = addr.of('etcd', i);
    const name = `etcd-${i}`;
    const was = before[name];
    planned.push({
      name,
      address,
      client: await pickPort(taken, address, was?.client ?? ETCD_PORTS.client),
      peer: await pickPort(taken, address, was?.peer ?? ETCD_PORTS.peer),
      metrics: await pickPort(taken, address, was?.metrics ?? ETCD_PORTS.metrics),
    });
  }
  fs.mkdirSync(path.dirname(remembered), { recursive: true });
  fs.writeFileSync(remembered, JSON.stringify(Object.fromEntries(planned.map((m) => [m.name, { client: m.client, peer: m.peer, metrics: m.metrics }]))) + '\n');
  const initialCluster = planned.map((m) => `${m.name}=https://${m.address}:${m.peer}`).join(',');
  const tls = [
    `--cert-file=${pki.cert}`, `--key-file=${pki.key}`, `--trusted-ca-file=${pki.ca}`, '--client-cert-auth',
    `--peer-cert-file=${pki.cert}`, `--peer-key-file=${pki.key}`, `--peer-trusted-ca-file=${pki.ca}`, '--peer-client-cert-auth',
  ];
  const members = planned.map((m): ComponentSpec => ({
    name: m.name,
    kind: 'etcd',
    command: 'etcd',
    args: [
      `--name=${m.name}`,
      `--data-dir=${path.join(o.dataDir, 'etcd', m.name)}`,
      `--listen-client-urls=https://${m.address}:${m.client}`,
      `--advertise-client-urls=https://${m.address}:${m.client}`,
      `--listen-peer-urls=https://${m.address}:${m.peer}`,
      `--initial-advertise-peer-urls=https://${m.address}:${m.peer}`,
      `--listen-metrics-urls=http://${m.address}:${m.metrics}`,
      `--initial-cluster=${initialCluster}`,
      // Ignored once the member has data: a restarted lab rejoins the same cluster.
      '--initial-cluster-state=new',
      '--initial-cluster-token=kemu-etcd',
      ...tls,
      '--logger=zap',
      `--log-level=${o.v >= 4 ? 'debug' : 'info'}`,
    ],
    healthUrl: `http://${m.address}:${m.metrics}/health`,
    address: m.address,
    ports: { client: m.client, peer: m.peer, metrics: m.metrics },
  }));
  const servers = planned.map((m) => `https://${m.address}:${m.client}`);
  return {
    members,
    servers,
    apiserverFlags: [`--etcd-servers=${servers.join(',')}`, `--etcd-cafile=${pki.ca}`, `--etcd-certfile=${pki.cert}`, `--etcd-keyfile=${pki.key}`],
    pki,
  };
}
