// The compose file's shape: the services, hostnames, the state volume only on apiservers, health checks,
// restart policy and stop settings — and that docker-compose 1.29 accepts it (`docker-compose config`).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '@kemu/kemu';
import { run } from './lab.ts';

interface Service {
  hostname?: string;
  container_name?: string;
  expose?: string[];
  image?: string;
  command?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  restart?: string;
  stop_signal?: string;
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
}

const file = path.join(ROOT, 'docker-compose.yml');
const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const hasCompose = fs.existsSync('/usr/bin/docker-compose') || fs.existsSync('/usr/local/bin/docker-compose');

describe('docker-compose.yml', () => {
  const names = ['lb', ...['apiserver', 'controller-manager', 'scheduler', 'worker'].flatMap((k) => [0, 1, 2].map((i) => `${k}-${i}`))];

  it('has the lab services with hostnames equal to their names', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...names].sort());
    for (const n of names) expect(compose.services[n]?.hostname, n).toBe(n);
  });

  it('names every container as its service (docker stop <Lease holder prefix>) and exposes only the port it serves', () => {
    const port: Record<string, string> = { apiserver: '6443', 'controller-manager': '10257', scheduler: '10259', worker: '10250' };
    for (const n of names) {
      expect(compose.services[n]?.container_name, n).toBe(n);
      if (n !== 'lb') expect(compose.services[n]?.expose, n).toEqual([port[n.replace(/-\d+$/, '')]]);
    }
    expect(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).not.toMatch(/^EXPOSE/m);
  });

  it("passes the eviction timings: apiservers' default toleration seconds, controller-managers' node monitoring", () => {
    for (const n of names.filter((x) => x.startsWith('apiserver-'))) {
      const cmd = compose.services[n]?.command ?? [];
      expect(cmd, n).toContain('--default-not-ready-toleration-seconds=${KEMU_DEFAULT_NOT_READY_TOLERATION_SECONDS:-300}');
      expect(cmd, n).toContain('--default-unreachable-toleration-seconds=${KEMU_DEFAULT_UNREACHABLE_TOLERATION_SECONDS:-300}');
    }
    for (const n of names.filter((x) => x.startsWith('controller-manager-'))) {
      const cmd = compose.services[n]?.command ?? [];
      expect(cmd, n).toContain('--node-monitor-grace-period=${KEMU_NODE_MONITOR_GRACE_PERIOD:-50s}');
      expect(cmd, n).toContain('--node-monitor-period=${KEMU_NODE_MONITOR_PERIOD:-5s}');
    }
  });

  it('mounts the state volume into the apiservers only, and each worker its own /var/lib/kubelet', () => {
    expect(Object.keys(compose.volumes)).toEqual(['state', 'kubelet-worker-0', 'kubelet-worker-1', 'kubelet-worker-2']);
    for (const [n, s] of Object.entries(compose.services)) {
      const mountsState = (s.volumes ?? []).some((v) => v.startsWith('state:'));
      expect(mountsState, n).toBe(n.startsWith('apiserver-'));
      const kubelet = (s.volumes ?? []).filter((v) => v.startsWith('kubelet-'));
      expect(kubelet, n).toEqual(n.startsWith('worker-') ? [`kubelet-${n}:/var/lib/kubelet`] : []);
    }
  });

  it("bootstraps the workers as seed 003 does, the controller-managers signing with the cluster CA", () => {
    for (const n of names.filter((x) => x.startsWith('worker-'))) {
      expect(compose.services[n]?.command, n).toEqual(expect.arrayContaining([
        '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.kubeconfig',
        '--kubeconfig=/var/lib/kubelet/kubeconfig',
        '--cert-dir=/var/lib/kubelet/pki',
        '--rotate-certificates=true',
        // The kubelet's API only for callers the cluster knows and authorizes (the apiservers' apiserver.pem).
        '--client-ca-file=/etc/kubernetes/pki/ca.pem',
        '--anonymous-auth=false',
        '--authentication-token-webhook=true',
        '--authorization-mode=Webhook',
      ]));
      // Its probe is the open healthz port (127.0.0.1:10248, plain HTTP), not the API port.
      expect(compose.services[n]?.healthcheck?.test.join(' '), n).toMatch(/require\('http'\)\.get\(\{host:'127\.0\.0\.1',port:10248,path:'\/healthz'\}/);
    }
    for (const n of names.filter((x) => x.startsWith('controller-manager-'))) {
      expect(compose.services[n]?.command, n).toEqual(expect.arrayContaining([
        '--root-ca-file=/etc/kubernetes/pki/ca.pem',
        '--cluster-signing-cert-file=/etc/kubernetes/pki/ca.pem',
        '--cluster-signing-key-file=/etc/kubernetes/pki/ca-key.pem',
        '--service-account-private-key-file=/etc/kubernetes/pki/sa.key',
        '--controllers=*,bootstrapsigner,tokencleaner',
      ]));
    }
  });

  it('gives every service a health check, restart on failure and SIGTERM with a grace period', () => {
    for (const [n, s] of Object.entries(compose.services)) {
      expect(s.healthcheck?.test.join(' '), n).toMatch(n === 'lb' ? /6443/ : n.startsWith('apiserver') ? /\/readyz/ : /\/healthz/);
      expect(s.restart, n).toBe('on-failure');
      expect(s.stop_signal, n).toBe('SIGTERM');
      expect(s.stop_grace_period, n).toBeTruthy();
    }
    for (const n of names.filter((x) => /^(controller-manager|scheduler|worker)-/.test(x)))
      expect(compose.services[n]?.depends_on?.lb?.condition, n).toBe('service_healthy');
    expect(compose.services.lb?.ports?.some((p) => p.endsWith(':6443'))).toBe(true);
  });

  it('names each process by its --hostname-override and points clients at the balancer', () => {
    for (const n of names.filter((x) => x !== 'lb')) {
      const cmd = compose.services[n]?.command ?? [];
      expect(cmd, n).toContain(`--hostname-override=${n}`);
      // Over HTTPS, each with its own kubeconfig (server https://lb:6443) from the mounted data dir.
      if (n.startsWith('worker-')) expect(cmd, n).toContain('--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.kubeconfig');
      else if (!n.startsWith('apiserver')) expect(cmd.find((a) => a.startsWith('--kubeconfig=/etc/kubernetes/')), n).toBeTruthy();
      else expect(cmd, n).toEqual(expect.arrayContaining(['--tls-cert-file=/etc/kubernetes/pki/apiserver.pem', '--client-ca-file=/etc/kubernetes/pki/ca.pem', '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver.pem', '--kubelet-client-key=/etc/kubernetes/pki/apiserver-key.pem']));
    }
  });

  it.skipIf(!hasCompose)('passes docker-compose config' + (hasCompose ? '' : ' (skipped: docker-compose is not installed)'), async () => {
    const r = await run('docker-compose', ['-f', file, 'config', '-q']);
    expect(r.code, r.stderr).toBe(0);
  });
});
