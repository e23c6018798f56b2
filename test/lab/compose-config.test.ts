// The compose file's shape: the services, hostnames, the state volume only on apiservers, health checks,
// restart policy and stop settings, the node groups' cloud, the cluster-autoscaler, the addon manager and
// metrics-server — and that docker-compose 1.29 accepts it (`docker-compose config`).
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
  const addOns = ['metrics-server', 'kube-addon-manager', 'cloud', 'cluster-autoscaler'];
  const all = [...names, ...addOns];

  it('has the lab services with hostnames equal to their names', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...all].sort());
    for (const n of all) expect(compose.services[n]?.hostname, n).toBe(n);
  });

  it('names every container as its service (docker stop <Lease holder prefix>) and exposes only the port it serves', () => {
    const port: Record<string, string> = { apiserver: '6443', 'controller-manager': '10257', scheduler: '10259', worker: '10250', 'metrics-server': '10250', 'cluster-autoscaler': '8085' };
    for (const n of all) {
      expect(compose.services[n]?.container_name, n).toBe(n);
      if (n !== 'lb') expect(compose.services[n]?.expose, n).toEqual(port[n.replace(/-\d+$/, '')] ? [port[n.replace(/-\d+$/, '')]] : undefined);
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

  it("passes kemu up's HorizontalPodAutoscaler timing: controller-managers' sync period and stabilization, kubelets' CPU window", () => {
    for (const n of names.filter((x) => x.startsWith('controller-manager-')))
      expect(compose.services[n]?.command, n).toEqual(expect.arrayContaining([
        '--horizontal-pod-autoscaler-sync-period=${KEMU_HPA_SYNC_PERIOD:-15s}',
        '--horizontal-pod-autoscaler-downscale-stabilization=${KEMU_HPA_DOWNSCALE_STABILIZATION:-5m0s}',
      ]));
    for (const n of names.filter((x) => x.startsWith('worker-'))) expect(compose.services[n]?.command, n).toContain('--cpu-usage-window=${KEMU_CPU_USAGE_WINDOW:-10s}');
    expect(compose.services.cloud?.command).toContain('--kubelet-arg=--cpu-usage-window=${KEMU_CPU_USAGE_WINDOW:-10s}');
  });

  it('declares the node groups on the cloud, which shares its socket and cloud config with the cluster-autoscaler', () => {
    const cloud = compose.services.cloud;
    expect(cloud?.command?.slice(0, 3)).toEqual(['kemu', 'compose', 'cloud']);
    expect(cloud?.command).toContain('--node-group=name=pool,min=0,max=3,cpu=4,memory=8Gi');
    // Its machines are containers made through the engine's socket, with the data dir it mounts.
    expect(cloud?.volumes).toEqual(['${KEMU_DATA_DIR:-./.kemu/compose}:/etc/kubernetes:ro', 'cloud:/var/run/kemu-cloud', '/var/run/docker.sock:/var/run/docker.sock']);
    const ca = compose.services['cluster-autoscaler'];
    expect(ca?.command).toEqual(expect.arrayContaining([
      '--kubeconfig=/etc/kubernetes/cluster-autoscaler.kubeconfig',
      '--cloud-provider=kemu',
      '--cloud-config=/var/run/kemu-cloud/cloud-config.yaml',
    ]));
    expect(ca?.volumes).toContain('cloud:/var/run/kemu-cloud:ro');
    expect(ca?.depends_on?.cloud?.condition).toBe('service_healthy');
    for (const [n, s] of Object.entries(compose.services))
      if (n !== 'cloud') expect((s.volumes ?? []).some((v) => v.includes('docker.sock')), n).toBe(false);
  });

  it('runs the addon manager on the data dir\'s addons, at the real default --addons-dir', () => {
    const am = compose.services['kube-addon-manager'];
    expect(am?.volumes).toEqual(['${KEMU_DATA_DIR:-./.kemu/compose}:/etc/kubernetes:ro']);
    expect(am?.command).toEqual(expect.arrayContaining(['kube-addon-manager', '--addons-dir=/etc/kubernetes/addons', '--period=${KEMU_ADDON_CHECK_INTERVAL:-60s}', '--hostname-override=kube-addon-manager']));
  });

  it("runs metrics-server with kemu up's flags (Hostname first: a worker's InternalIP is emulated), its identity and resolution", () => {
    const ms = compose.services['metrics-server'];
    expect(ms?.volumes).toEqual(['${KEMU_DATA_DIR:-./.kemu/compose}:/etc/kubernetes:ro']);
    expect(ms?.command).toEqual([
      'metrics-server',
      '--kubeconfig=/etc/kubernetes/metrics-server.kubeconfig',
      '--cert-dir=/tmp',
      '--secure-port=10250',
      '--kubelet-preferred-address-types=Hostname,InternalIP,ExternalIP',
      '--kubelet-use-node-status-port',
      '--kubelet-insecure-tls',
      '--metric-resolution=${KEMU_METRIC_RESOLUTION:-15s}',
    ]);
    // The image has its binary on PATH.
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY packages/metrics-server/bin packages/metrics-server/bin');
    expect(dockerfile).toMatch(/for b in [^;]*\bmetrics-server\b/);
  });

  it('mounts the state volume into the apiservers only, and each worker its own /var/lib/kubelet', () => {
    expect(Object.keys(compose.volumes)).toEqual(['state', 'kubelet-worker-0', 'kubelet-worker-1', 'kubelet-worker-2', 'cloud']);
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

  it('gives every service a health check (but the addon manager, which serves nothing), restart on failure and SIGTERM with a grace period', () => {
    const probe: Record<string, RegExp> = { lb: /6443/, 'metrics-server': /port:10250,path:'\/readyz'/, cloud: /cloud-config\.yaml/, 'cluster-autoscaler': /port:8085,path:'\/health-check'/ };
    for (const [n, s] of Object.entries(compose.services)) {
      if (n === 'kube-addon-manager') expect(s.healthcheck, n).toBeUndefined();
      else expect(s.healthcheck?.test.join(' '), n).toMatch(probe[n] ?? (n.startsWith('apiserver') ? /\/readyz/ : /\/healthz/));
      expect(s.restart, n).toBe('on-failure');
      expect(s.stop_signal, n).toBe('SIGTERM');
      expect(s.stop_grace_period, n).toBeTruthy();
    }
    for (const n of [...names.filter((x) => /^(controller-manager|scheduler|worker)-/.test(x)), 'metrics-server', 'kube-addon-manager', 'cloud'])
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
