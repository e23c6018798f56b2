import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMPOSE_FILE, composeServices } from '../commands/compose.ts';
import { COMPOSE_ETCD_FLAGS, ETCD_COMPOSE_FILE, renderEtcdCompose } from './etcd-compose.ts';

interface Service {
  command?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  container_name?: string;
  hostname?: string;
  image?: string;
}
const baseText = fs.readFileSync(COMPOSE_FILE, 'utf8');
const base = parse(baseText, { merge: true }) as { services: Record<string, Service> };
const etcd = parse(fs.readFileSync(ETCD_COMPOSE_FILE, 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const hasCompose = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;

describe('docker-compose.etcd.yml', () => {
  it('is what scripts/render-etcd-compose.ts makes from docker-compose.yml now', () => {
    expect(fs.readFileSync(ETCD_COMPOSE_FILE, 'utf8')).toBe(renderEtcdCompose(baseText));
  });

  it('adds three etcd members with mutual TLS from the mounted pki, each with its own data volume and a health check', () => {
    const members = ['etcd-0', 'etcd-1', 'etcd-2'];
    for (const m of members) {
      const s = etcd.services[m]!;
      expect([s.container_name, s.hostname, s.image]).toEqual([m, m, 'kemu/etcd:${KEMU_IMAGE_TAG:-latest}']);
      expect(s.command).toEqual(expect.arrayContaining([
        'etcd',
        `--name=${m}`,
        `--advertise-client-urls=https://${m}:2379`,
        '--initial-cluster=etcd-0=https://etcd-0:2380,etcd-1=https://etcd-1:2380,etcd-2=https://etcd-2:2380',
        '--client-cert-auth',
        '--peer-client-cert-auth',
        '--trusted-ca-file=/etc/kubernetes/pki/etcd-ca.pem',
        '--cert-file=/etc/kubernetes/pki/etcd.pem',
      ]));
      expect(s.volumes).toEqual([`${m}:/var/lib/etcd`, '${KEMU_DATA_DIR:-./.kemu/compose}:/etc/kubernetes:ro']);
      expect(s.healthcheck?.test.join(' ')).toMatch(/2381.*\/health/);
    }
    expect(Object.keys(etcd.volumes)).toEqual(members);
  });

  it("gives each apiserver seed 003's --etcd-* flags in place of the SQLite endpoint, its other flags unchanged, after the members are healthy", () => {
    for (const n of ['apiserver-0', 'apiserver-1', 'apiserver-2']) {
      const before = base.services[n]!.command!;
      const after = etcd.services[n]!.command!;
      expect(after.filter((a) => !a.startsWith('--etcd-'))).toEqual(before.filter((a) => !a.startsWith('--datastore-endpoint=')));
      expect(after).toEqual(expect.arrayContaining(COMPOSE_ETCD_FLAGS));
      expect(COMPOSE_ETCD_FLAGS[0]).toBe('--etcd-servers=https://etcd-0:2379,https://etcd-1:2379,https://etcd-2:2379');
      expect(etcd.services[n]!.depends_on).toEqual({ 'etcd-0': { condition: 'service_healthy' }, 'etcd-1': { condition: 'service_healthy' }, 'etcd-2': { condition: 'service_healthy' } });
    }
  });

  it('lists the members among the lab services when kemu compose up --store etcd reads both files', () => {
    const names = composeServices(COMPOSE_FILE, ETCD_COMPOSE_FILE).map((s) => s.container);
    expect(names.filter((n) => n.startsWith('etcd-'))).toEqual(['etcd-0', 'etcd-1', 'etcd-2']);
    expect(names).toContain('apiserver-2');
  });

  it.skipIf(!hasCompose)('passes docker-compose config over docker-compose.yml', () => {
    const r = spawnSync('docker-compose', ['-f', COMPOSE_FILE, '-f', ETCD_COMPOSE_FILE, 'config', '-q'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
