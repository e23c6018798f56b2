// The controller-manager and scheduler units of seeds 000 and 003, verbatim, and a cluster to start them against:
// the seed's PKI (ensureClusterPki: ca.pem, ca-key.pem, sa.key, front-proxy-ca.pem, component kubeconfigs with the
// server of a test kube-apiserver running with seed 003's access flags). A unit's paths are replaced by those
// files; the only flag added is --secure-port (a free port instead of 10257, so parallel tests never collide).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { R, type Lease } from '@kemu/api';
import { RestClient, loadClientConfig } from '@kemu/client';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { ensureClusterPki } from '@kemu/pki';
import { startPkiApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { secureGet } from '../support/secure-port.ts';

/** Seed 000, lesson 8, step 2 (the unit on each of three controllers). */
export const SEED_000_KCM = `ExecStart=/usr/local/bin/kube-controller-manager \\
  --bind-address=0.0.0.0 \\
  --cluster-cidr=10.200.0.0/16 \\
  --cluster-name=kubernetes \\
  --cluster-signing-cert-file=/var/lib/kubernetes/ca.pem \\
  --cluster-signing-key-file=/var/lib/kubernetes/ca-key.pem \\
  --kubeconfig=/var/lib/kubernetes/kube-controller-manager.kubeconfig \\
  --authentication-kubeconfig=/var/lib/kubernetes/kube-controller-manager.kubeconfig \\
  --authorization-kubeconfig=/var/lib/kubernetes/kube-controller-manager.kubeconfig \\
  --leader-elect=true \\
  --root-ca-file=/var/lib/kubernetes/ca.pem \\
  --service-account-private-key-file=/var/lib/kubernetes/service-account-key.pem \\
  --service-cluster-ip-range=10.32.0.0/24 \\
  --use-service-account-credentials=true \\
  --v=2`;

/** Seed 003, section 7 (the dual-stack unit). */
export const SEED_003_KCM = `ExecStart=/usr/local/bin/kube-controller-manager \\
 --v=2 \\
 --bind-address=0.0.0.0 \\
 --root-ca-file=/etc/kubernetes/pki/ca.pem \\
 --cluster-signing-cert-file=/etc/kubernetes/pki/ca.pem \\
 --cluster-signing-key-file=/etc/kubernetes/pki/ca-key.pem \\
 --service-account-private-key-file=/etc/kubernetes/pki/sa.key \\
 --kubeconfig=/etc/kubernetes/controller-manager.kubeconfig \\
 --leader-elect=true \\
 --use-service-account-credentials=true \\
 --node-monitor-grace-period=40s \\
 --node-monitor-period=5s \\
 --controllers=*,bootstrapsigner,tokencleaner \\
 --allocate-node-cidrs=true \\
 --service-cluster-ip-range=10.96.0.0/12,fd00:1111::/112 \\
 --cluster-cidr=172.218.0.0/12,fc00:2222::/112 \\
 --node-cidr-mask-size-ipv4=24 \\
 --node-cidr-mask-size-ipv6=120 \\
 --requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.pem`;

/** Seed 003's second, shorter unit (its appendix). */
export const SEED_003_KCM_SHORT = `ExecStart=/usr/local/bin/kube-controller-manager \\
 --v=2 \\
 --bind-address=0.0.0.0 \\
 --root-ca-file=/etc/kubernetes/pki/ca.pem \\
 --cluster-signing-cert-file=/etc/kubernetes/pki/ca.pem \\
 --cluster-signing-key-file=/etc/kubernetes/pki/ca-key.pem \\
 --service-account-private-key-file=/etc/kubernetes/pki/sa.key \\
 --kubeconfig=/etc/kubernetes/controller-manager.kubeconfig \\
 --leader-elect=true \\
 --use-service-account-credentials=true \\
 --controllers=*,bootstrapsigner,tokencleaner`;

/** Seed 000, lesson 8, step 3: the scheduler's unit and its configuration file. */
export const SEED_000_SCHEDULER = `ExecStart=/usr/local/bin/kube-scheduler \\
  --config=/var/lib/kubernetes/kube-scheduler.yaml \\
  --v=2`;
export const SEED_000_SCHEDULER_CONFIG = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /var/lib/kubernetes/kube-scheduler.kubeconfig
leaderElection:
  leaderElect: true
`;

/** The flags of an ExecStart= block (continuation lines joined). */
export function unitArgs(unit: string): string[] {
  return unit.replace(/\\\n/g, ' ').replace(/^ExecStart=\S+/, '').trim().split(/\s+/);
}

export interface SeedCluster {
  dir: string;
  apiserver: ApiserverProc;
  /** The admin's client (system:masters). */
  client: RestClient;
  /** Seed path → file made for the test. */
  paths: Record<string, string>;
  start(name: string, bin: 'controllerManager' | 'scheduler', unit: string): Promise<{ proc: Proc; port: number }>;
  stop(): Promise<void>;
}

export async function startSeedCluster(prefix: string): Promise<SeedCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const port = await freePort();
  await ensureClusterPki({ dataDir: dir, server: `https://127.0.0.1:${port}` });
  const pki = path.join(dir, 'pki');
  const apiserver = await startPkiApiserver('apiserver-seed', path.join(dir, 'state.db'), pki, port, [
    '--enable-bootstrap-token-auth=true',
    `--requestheader-client-ca-file=${pki}/front-proxy-ca.pem`,
  ]);
  const schedulerConfig = path.join(dir, 'kube-scheduler.yaml');
  writeFileSync(schedulerConfig, SEED_000_SCHEDULER_CONFIG.replace('/var/lib/kubernetes/kube-scheduler.kubeconfig', path.join(dir, 'scheduler.kubeconfig')));
  const paths: Record<string, string> = {
    '/var/lib/kubernetes/ca.pem': `${pki}/ca.pem`,
    '/var/lib/kubernetes/ca-key.pem': `${pki}/ca-key.pem`,
    '/var/lib/kubernetes/kube-controller-manager.kubeconfig': path.join(dir, 'controller-manager.kubeconfig'),
    '/var/lib/kubernetes/service-account-key.pem': `${pki}/sa.key`,
    '/var/lib/kubernetes/kube-scheduler.yaml': schedulerConfig,
    '/etc/kubernetes/pki/ca.pem': `${pki}/ca.pem`,
    '/etc/kubernetes/pki/ca-key.pem': `${pki}/ca-key.pem`,
    '/etc/kubernetes/pki/sa.key': `${pki}/sa.key`,
    '/etc/kubernetes/pki/front-proxy-ca.pem': `${pki}/front-proxy-ca.pem`,
    '/etc/kubernetes/controller-manager.kubeconfig': path.join(dir, 'controller-manager.kubeconfig'),
  };
  const client = new RestClient(loadClientConfig({ kubeconfig: path.join(dir, 'admin.kubeconfig') }));
  const procs: Proc[] = [];
  return {
    dir,
    apiserver,
    client,
    paths,
    async start(name, bin, unit) {
      const securePort = await freePort();
      const args = unitArgs(unit).map((a) => a.replace(/=(\/\S+)$/, (m, p: string) => (paths[p] ? `=${paths[p]}` : m)));
      const proc = startProcess(name, BIN[bin], [...args, `--secure-port=${securePort}`]);
      procs.push(proc);
      return { proc, port: securePort };
    },
    async stop() {
      for (const p of procs) await p.kill('SIGKILL');
      await apiserver.proc.kill('SIGKILL');
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits for `ok` from the component's /healthz (HTTPS, its self-signed certificate) while it keeps running. */
export async function waitHealthy(proc: Proc, port: number): Promise<void> {
  await waitFor(
    `${proc.name} /healthz`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited ${proc.child.exitCode}: ${proc.output()}`);
      const r = await secureGet(`https://127.0.0.1:${port}/healthz`).catch(() => undefined);
      return r?.status === 200 && r.body === 'ok';
    },
    30_000,
  );
}

/** The Lease's holder once someone holds it. */
export async function waitLeaseHolder(client: RestClient, name: string, proc: Proc): Promise<string> {
  return waitFor(
    `${name} Lease`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited ${proc.child.exitCode}: ${proc.output()}`);
      const lease = await client.get<Lease>(R.leases, 'kube-system', name).catch(() => undefined);
      return lease?.spec?.holderIdentity || undefined;
    },
    30_000,
  );
}
