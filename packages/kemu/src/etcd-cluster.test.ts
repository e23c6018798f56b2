import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { etcdUnavailable, planEtcdCluster } from './etcd-cluster.ts';

describe('planEtcdCluster', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-etcd-plan-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('asks a restarted lab for the ports its members had (their data remembers the peer URLs)', async () => {
    fs.mkdirSync(path.join(dir, 'etcd'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'etcd', 'ports.json'), JSON.stringify({ 'etcd-0': { client: 32379, peer: 32380, metrics: 32381 } }));
    const c = await planEtcdCluster({ dataDir: dir, address: '127.0.214.1', members: 2, v: 0 }, new Set());
    expect(c.members[0]!.ports).toEqual({ client: 32379, peer: 32380, metrics: 32381 });
    expect(c.members[1]!.ports).toEqual({ client: 2379, peer: 2380, metrics: 2381 });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'etcd', 'ports.json'), 'utf8'))['etcd-1']).toEqual({ client: 2379, peer: 2380, metrics: 2381 });
  });

  it('puts etcd-N on .4N of the lab /24 with TLS peers and clients, and gives the apiservers every member', async () => {
    const c = await planEtcdCluster({ dataDir: path.join(dir, 'lab'), address: '127.0.213.1', members: 3, v: 0 }, new Set());
    expect(c.members.map((m) => [m.name, m.kind, m.address])).toEqual([
      ['etcd-0', 'etcd', '127.0.213.40'],
      ['etcd-1', 'etcd', '127.0.213.41'],
      ['etcd-2', 'etcd', '127.0.213.42'],
    ]);
    const m1 = c.members[1]!;
    const { client, peer, metrics } = m1.ports as { client: number; peer: number; metrics: number };
    expect(m1.args).toContain('--name=etcd-1');
    expect(m1.args).toContain(`--data-dir=${path.join(dir, 'lab')}/etcd/etcd-1`);
    expect(m1.args).toContain(`--listen-client-urls=https://127.0.213.41:${client}`);
    expect(m1.args).toContain(`--initial-advertise-peer-urls=https://127.0.213.41:${peer}`);
    expect(m1.args.find((a) => a.startsWith('--initial-cluster='))).toMatch(/^--initial-cluster=etcd-0=https:\/\/127\.0\.213\.40:\d+,etcd-1=https:\/\/127\.0\.213\.41:\d+,etcd-2=https:\/\/127\.0\.213\.42:\d+$/);
    const lab = path.join(dir, 'lab');
    for (const f of ['--client-cert-auth', '--peer-client-cert-auth', `--trusted-ca-file=${lab}/pki/etcd-ca.pem`, `--cert-file=${lab}/pki/etcd.pem`, `--peer-key-file=${lab}/pki/etcd-key.pem`]) expect(m1.args).toContain(f);
    expect(m1.healthUrl).toBe(`http://127.0.213.41:${metrics}/health`);
    expect(c.apiserverFlags).toEqual([
      `--etcd-servers=${c.servers.join(',')}`,
      `--etcd-cafile=${lab}/pki/etcd-ca.pem`,
      `--etcd-certfile=${lab}/pki/etcd.pem`,
      `--etcd-keyfile=${lab}/pki/etcd-key.pem`,
    ]);
  });

  it('says what to install when there is no etcd binary', () => {
    expect(etcdUnavailable('kemu-no-such-etcd')).toMatch(/--store etcd needs etcd, which is not installed .*apt-get install etcd-server/);
  });
});
