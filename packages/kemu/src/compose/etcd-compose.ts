// The compose lab on etcd: docker-compose.etcd.yml, an override of docker-compose.yml (`-f docker-compose.yml
// -f docker-compose.etcd.yml`, or `kemu compose up --store etcd`) adding three etcd members with mutual TLS
// from the data dir's pki/etcd-ca.pem and etcd.pem, and giving each apiserver seed 003's --etcd-* flags in place
// of the SQLite endpoint. The file is rendered from docker-compose.yml (scripts/render-etcd-compose.ts) so the
// apiservers' other flags stay the same in both. The etcd image is the local Node base plus the host's etcd
// binary (Debian's etcd-server, a static Go binary) copied into deploy/etcd/ before the build: Docker Hub has
// no etcd image and quay.io may be out of reach, as for the base images.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse, stringify } from 'yaml';
import { ROOT } from '../topology.ts';
import { ETCD_PORTS } from '../etcd-cluster.ts';

export const ETCD_COMPOSE_FILE = path.join(ROOT, 'docker-compose.etcd.yml');
export const ETCD_BUILD_DIR = path.join(ROOT, 'deploy/etcd');
export const ETCD_MEMBERS = ['etcd-0', 'etcd-1', 'etcd-2'] as const;

const PKI = '/etc/kubernetes/pki';
/** The apiservers' store flags in the containers: every member by name, seed 003's TLS files. */
export const COMPOSE_ETCD_FLAGS = [
  `--etcd-servers=${ETCD_MEMBERS.map((m) => `https://${m}:${ETCD_PORTS.client}`).join(',')}`,
  `--etcd-cafile=${PKI}/etcd-ca.pem`,
  `--etcd-certfile=${PKI}/etcd.pem`,
  `--etcd-keyfile=${PKI}/etcd-key.pem`,
];

const HEADER = `# The compose lab on etcd (generated from docker-compose.yml by scripts/render-etcd-compose.ts; do not edit):
#   npx kemu compose up --store etcd          (copies the host's etcd binary into deploy/etcd/, builds, starts)
#   docker-compose -f docker-compose.yml -f docker-compose.etcd.yml up -d      (by hand, after the above once)
# Three members etcd-0..2 with mutual TLS (pki/etcd-ca.pem, etcd.pem, etcd-key.pem in the data dir, made by
# kemu compose up --store etcd), each with its data in its own volume; the apiservers take seed 003's
# --etcd-servers/--etcd-cafile/--etcd-certfile/--etcd-keyfile instead of the SQLite file.
`;

interface Service {
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  [k: string]: unknown;
}

function member(name: string): Service {
  const tls = [
    `--cert-file=${PKI}/etcd.pem`, `--key-file=${PKI}/etcd-key.pem`, `--trusted-ca-file=${PKI}/etcd-ca.pem`, '--client-cert-auth',
    `--peer-cert-file=${PKI}/etcd.pem`, `--peer-key-file=${PKI}/etcd-key.pem`, `--peer-trusted-ca-file=${PKI}/etcd-ca.pem`, '--peer-client-cert-auth',
  ];
  const { client, peer, metrics } = ETCD_PORTS;
  return {
    container_name: name,
    hostname: name,
    image: 'kemu/etcd:${KEMU_IMAGE_TAG:-latest}',
    ...(name === ETCD_MEMBERS[0]
      ? { build: { context: '.', dockerfile: 'deploy/etcd/Dockerfile', network: 'host', args: { NODE_IMAGE: '${NODE_IMAGE:-node:20-bookworm-slim}' } } }
      : {}),
    restart: 'on-failure',
    stop_signal: 'SIGTERM',
    stop_grace_period: '15s',
    init: true,
    expose: [String(client), String(peer)],
    command: [
      'etcd',
      `--name=${name}`,
      '--data-dir=/var/lib/etcd',
      `--listen-client-urls=https://0.0.0.0:${client}`,
      `--advertise-client-urls=https://${name}:${client}`,
      `--listen-peer-urls=https://0.0.0.0:${peer}`,
      `--initial-advertise-peer-urls=https://${name}:${peer}`,
      `--listen-metrics-urls=http://0.0.0.0:${metrics}`,
      `--initial-cluster=${ETCD_MEMBERS.map((m) => `${m}=https://${m}:${peer}`).join(',')}`,
      '--initial-cluster-state=new',
      '--initial-cluster-token=kemu-etcd',
      ...tls,
      '--logger=zap',
    ],
    volumes: [`${name}:/var/lib/etcd`, '${KEMU_DATA_DIR:-./.kemu/compose}:/etc/kubernetes:ro'],
    healthcheck: {
      test: ['CMD', 'node', '-e', `require('http').get({host:'127.0.0.1',port:${metrics},path:'/health'},(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))`],
      interval: '5s',
      timeout: '3s',
      retries: 30,
      start_period: '5s',
    },
  };
}

/** docker-compose.etcd.yml's text for this docker-compose.yml text. */
export function renderEtcdCompose(baseText: string): string {
  const base = parse(baseText, { merge: true }) as { services: Record<string, Service> };
  const services: Record<string, Service> = {};
  for (const m of ETCD_MEMBERS) services[m] = member(m);
  for (const [name, s] of Object.entries(base.services)) {
    if (!name.startsWith('apiserver-')) continue;
    const cmd = s.command ?? [];
    const i = cmd.findIndex((a) => a.startsWith('--datastore-endpoint='));
    if (i < 0) throw new Error(`docker-compose.yml: ${name} has no --datastore-endpoint to replace`);
    services[name] = {
      command: [...cmd.slice(0, i), ...COMPOSE_ETCD_FLAGS, ...cmd.slice(i + 1)],
      depends_on: Object.fromEntries(ETCD_MEMBERS.map((m) => [m, { condition: 'service_healthy' }])),
    };
  }
  const volumes = Object.fromEntries(ETCD_MEMBERS.map((m) => [m, {}]));
  return HEADER + stringify({ version: '3.7', services, volumes }, { lineWidth: 0 });
}

/**
 * Puts the host's etcd binary into deploy/etcd/ for the image build (ignored by git). Returns why it cannot
 * (no etcd installed), or undefined.
 */
export function prepareEtcdBuildContext(): string | undefined {
  const which = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  const bin = which.stdout.trim();
  if (which.status !== 0 || !bin) return 'the etcd image is built from the host\'s etcd binary, and etcd is not installed: apt-get install etcd-server';
  const dest = path.join(ETCD_BUILD_DIR, 'etcd');
  const src = fs.realpathSync(bin);
  const same = fs.existsSync(dest) && fs.statSync(dest).size === fs.statSync(src).size && fs.statSync(dest).mtimeMs >= fs.statSync(src).mtimeMs;
  if (!same) fs.copyFileSync(src, dest);
  fs.chmodSync(dest, 0o755);
  return undefined;
}
