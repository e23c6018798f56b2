// The lab's topology as a list of process specs: which binary, which flags, which ports, how to tell it is up.
// Names are each process's --hostname-override, so a Lease holder "controller-manager-1_<uuid>" names its process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '@kemu/base';
import { pickPort, pickSharedPort } from './ports.ts';
import { labAddresses } from './addresses.ts';
import { labPkiFiles, type LabPkiFiles } from './lab-pki.ts';
import { labAddonsDir } from './lab-addons.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The kinds kemu runs from its own packages (a Node binary each). */
export type NodeKind = 'apiserver' | 'controller-manager' | 'scheduler' | 'addon-manager' | 'worker' | 'cluster-autoscaler' | 'metrics-server';
export type ComponentKind = 'lb' | 'etcd' | NodeKind;

export interface ComponentSpec {
  name: string;
  kind: ComponentKind;
  /** Executable and arguments; Node binaries run with process.execPath. */
  command: string;
  args: string[];
  /** GET this URL; 200 means the component is up. */
  healthUrl?: string;
  /** For an https:// healthUrl: the CA file to verify it with (read at each check: it may be made later). */
  healthCaFile?: string;
  /** The loopback address it listens on (its ports are on this address). */
  address: string;
  ports: Record<string, number>;
}

export const BINARIES: Record<NodeKind, { pkg: string; bin: string }> = {
  apiserver: { pkg: 'apiserver', bin: 'kube-apiserver' },
  'controller-manager': { pkg: 'controller-manager', bin: 'kube-controller-manager' },
  scheduler: { pkg: 'scheduler', bin: 'kube-scheduler' },
  'addon-manager': { pkg: 'addon-manager', bin: 'kube-addon-manager' },
  worker: { pkg: 'kubelet', bin: 'kubelet' },
  'cluster-autoscaler': { pkg: 'cluster-autoscaler', bin: 'cluster-autoscaler' },
  'metrics-server': { pkg: 'metrics-server', bin: 'metrics-server' },
};

export function binPath(kind: NodeKind): string {
  const b = BINARIES[kind];
  return path.join(ROOT, 'packages', b.pkg, 'bin', `${b.bin}.js`);
}

/** A component exists once its package has a src/main.ts behind the bin stub. */
export function isImplemented(kind: NodeKind): boolean {
  return fs.existsSync(path.join(ROOT, 'packages', BINARIES[kind].pkg, 'src', 'main.ts'));
}

export const KEMU_BIN = path.join(ROOT, 'packages/kemu/bin/kemu.js');

export interface TopologyOptions {
  dataDir: string;
  /** The balancer's address; the lab's other addresses are in its /24 (see addresses.ts). */
  address: string;
  port: number;
  apiservers: number;
  controllerManagers: number;
  schedulers: number;
  /** kube-addon-manager replicas (leader-elected), reading DIR/addons (lab-addons.ts); default 0. */
  addonManagers?: number;
  /** Their --period (how often the addons directory is applied); default 60 s. */
  addonCheckIntervalMs?: number;
  workers: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeMonitorPeriodMs: number;
  /** The controller-managers' --horizontal-pod-autoscaler-sync-period / -downscale-stabilization; their defaults when unset. */
  hpaSyncPeriodMs?: number;
  hpaDownscaleStabilizationMs?: number;
  /** The kubelets' --cpu-usage-window; their default when unset. */
  cpuUsageWindowMs?: number;
  /** kube-apiserver's --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds. */
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  nodeStatusUpdateFrequencyMs: number;
  nodeLeaseDurationSeconds: number;
  maxPods: number;
  imagePullDelayMs: number;
  /** Kubelets' --image-catalog files (absolute paths). */
  imageCatalogs?: readonly string[];
  v: number;
  /** --logging-format of every component (text or json). */
  loggingFormat: string;
  /** The apiservers' --audit-policy-file; each then writes <dataDir>/logs/audit-<name>.log. */
  auditPolicyFile?: string;
  /** Kubelets get their client certificates by TLS bootstrapping (see kubeletBootstrapMode); else kemu issues them. */
  kubeletBootstrap: boolean;
  /** The apiservers' store flags (etcd-cluster.ts's); default: the lab's SQLite file, DIR/state.db. */
  storeFlags?: string[];
}

export interface Topology {
  apiservers: ComponentSpec[];
  controllerManagers: ComponentSpec[];
  schedulers: ComponentSpec[];
  addonManagers: ComponentSpec[];
  workers: ComponentSpec[];
  /** Kinds left out because their binary is not implemented yet. */
  missing: NodeKind[];
}

/** A replica's audit flags: rotated at 100 MB, 2 backups kept, so a long-running lab stays bounded. */
function auditFlags(policyFile: string, logPath: string): string[] {
  return [`--audit-policy-file=${policyFile}`, `--audit-log-path=${logPath}`, '--audit-log-maxsize=100', '--audit-log-maxbackup=2'];
}

/** Every apiserver's serving flags: HTTPS with apiserver.pem, client certificates checked against ca.pem. */
export function labApiserverTlsFlags(f: LabPkiFiles): string[] {
  return [`--tls-cert-file=${f.apiserverCert}`, `--tls-private-key-file=${f.apiserverKey}`, `--client-ca-file=${f.ca}`];
}

/**
 * How every apiserver reaches the kubelets, as seed 003's unit has it: apiserver.pem (CN kube-apiserver, issued for
 * client auth too) as its client certificate, each node's InternalIP first — in the process lab the kubelet's own
 * loopback address (its Hostname, the node name, resolves nowhere). No --kubelet-certificate-authority, as the seed:
 * the kubelets' serving certificates are not verified.
 */
export function labApiserverKubeletFlags(f: LabPkiFiles): string[] {
  return [`--kubelet-client-certificate=${f.apiserverCert}`, `--kubelet-client-key=${f.apiserverKey}`, '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname'];
}

/** The ServiceAccount token flags of every apiserver, as seed 003's unit has them. */
export const LAB_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export function labApiserverServiceAccountFlags(f: LabPkiFiles): string[] {
  return [`--service-account-key-file=${f.saPub}`, `--service-account-signing-key-file=${f.saKey}`, `--service-account-issuer=${LAB_SERVICE_ACCOUNT_ISSUER}`];
}

/** Authentication and authorization as kubeadm and seed 003 run them: Node and RBAC, front-proxy headers, bootstrap tokens. */
export function labApiserverAccessFlags(f: LabPkiFiles): string[] {
  return [
    '--authorization-mode=Node,RBAC',
    // As seed 003 and kubeadm: without it the Node authorizer's NodeRules let a kubelet delete any node's pods.
    '--enable-admission-plugins=NodeRestriction',
    '--enable-bootstrap-token-auth=true',
    `--requestheader-client-ca-file=${f.frontProxyCa}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    // The aggregator's identity towards aggregated API servers (signed by the front-proxy CA, as kubeadm's).
    `--proxy-client-cert-file=${f.frontProxyClientCert}`,
    `--proxy-client-key-file=${f.frontProxyClientKey}`,
  ];
}

/** A controller-manager's or scheduler's secure port: delegated authentication and authorization, as kubeadm sets it up. */
export function labDelegatedAuthFlags(f: LabPkiFiles, kubeconfig: string): string[] {
  return [`--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`, `--client-ca-file=${f.ca}`, `--requestheader-client-ca-file=${f.frontProxyCa}`];
}

/** Whether kubelets bootstrap, and if not why (a start-up line): someone must sign their CSRs. */
export function kubeletBootstrapMode(wanted: boolean, controllerManagers: number): { bootstrap: boolean; why: string } {
  if (!wanted) return { bootstrap: false, why: '--kubelet-bootstrap=false: kemu issues each kubelet its certificate' };
  if (controllerManagers === 0) return { bootstrap: false, why: 'no controller-manager to sign node CSRs (--controller-managers=0): kemu issues each kubelet its certificate' };
  return { bootstrap: true, why: 'kubelets bootstrap with the token in bootstrap-kubelet.kubeconfig; their CSRs are auto-approved and signed by the controller-manager' };
}

/** A bootstrapping kubelet, as seed 003 runs it: the bootstrap kubeconfig, the kubeconfig it writes, its cert dir, rotation. */
export function labKubeletBootstrapFlags(f: LabPkiFiles, node: string, bootstrapKubeconfig = f.bootstrapKubeconfig): string[] {
  return [`--bootstrap-kubeconfig=${bootstrapKubeconfig}`, `--kubeconfig=${f.kubeletKubeconfig(node)}`, `--cert-dir=${f.kubeletCertDir(node)}`, '--rotate-certificates=true', `--proxy-kubeconfig=${f.kubeProxyKubeconfig}`];
}

/** A kubelet with a certificate kemu issued (lab-pki.ts); its own --cert-dir keeps its serving pair out of /var/lib/kubelet/pki. */
export function labKubeletPreIssuedFlags(f: LabPkiFiles, node: string): string[] {
  return [`--kubeconfig=${f.kubeletKubeconfig(node)}`, `--cert-dir=${f.kubeletCertDir(node)}`, `--proxy-kubeconfig=${f.kubeProxyKubeconfig}`];
}

/**
 * How every lab kubelet guards its API, as a secured kubelet (kubeadm's KubeletConfiguration) does: client
 * certificates from the cluster CA (the apiservers' apiserver.pem, CN kube-apiserver), bearer tokens by TokenReview,
 * no anonymous requests, and a SubjectAccessReview per request (nodes/proxy, nodes/log, …). Their health probe is
 * the open --healthz-port, as the API port's /healthz needs credentials now.
 */
export function labKubeletAuthFlags(f: LabPkiFiles): string[] {
  return [`--client-ca-file=${f.ca}`, '--anonymous-auth=false', '--authentication-token-webhook=true', '--authorization-mode=Webhook'];
}

/** Seed 003's controller-manager identity flags: the cluster CA signs CSRs and is published as kube-root-ca.crt, sa.key signs SA tokens. */
export function labControllerManagerIdentityFlags(f: LabPkiFiles): string[] {
  return [
    `--root-ca-file=${f.ca}`,
    `--cluster-signing-cert-file=${f.ca}`,
    `--cluster-signing-key-file=${f.caKey}`,
    `--service-account-private-key-file=${f.saKey}`,
    '--controllers=*,bootstrapsigner,tokencleaner',
  ];
}

/** Kubernetes' default ports, each process on its own address (addresses.ts). */
export const DEFAULT_PORTS = { apiserver: 6443, 'controller-manager': 10257, scheduler: 10259, worker: 10250 } as const;

/** The kubelet's --healthz-port default: each worker's plain-HTTP /healthz, which the supervisor probes. */
export const KUBELET_HEALTHZ_PORT = 10248;

function nodeSpec(pki: LabPkiFiles, kind: NodeKind, name: string, args: string[], address: string, port: number, probe: string): ComponentSpec {
  return {
    name,
    kind,
    command: process.execPath,
    args: [binPath(kind), ...args],
    // Every component serves HTTPS: the apiservers on the lab's CA, the others self-signed (/healthz is open,
    // except on the kubelets' API port: planWorker probes their healthz port).
    healthUrl: `https://${address}:${port}${probe}`,
    ...(kind === 'apiserver' ? { healthCaFile: pki.ca } : {}),
    address,
    ports: { 'secure-port': port },
  };
}

/**
 * The i-th worker (address .10i of the lab's /24) named `name`: at start-up, and for `kemu join` at run time.
 * `bootstrapKubeconfig` overrides the lab's (a join with its own token).
 */
export async function planWorker(o: TopologyOptions, i: number, name: string, taken: Set<string>, bootstrapKubeconfig?: string, extraArgs: readonly string[] = []): Promise<ComponentSpec> {
  const pki = labPkiFiles(o.dataDir);
  // The node's InternalIP is its own address, where its kubelet serves (kubelet's --node-ip).
  const a = labAddresses(o.address, { worker: i + 1 }).of('worker', i);
  const p = await pickPort(taken, a, DEFAULT_PORTS.worker);
  const healthz = await pickPort(taken, a, KUBELET_HEALTHZ_PORT);
  const spec = nodeSpec(pki, 'worker', name, [
    ...(o.kubeletBootstrap ? labKubeletBootstrapFlags(pki, name, bootstrapKubeconfig) : labKubeletPreIssuedFlags(pki, name)),
    ...labKubeletAuthFlags(pki),
    `--hostname-override=${name}`,
    `--node-ip=${a}`,
    `--bind-address=${a}`,
    `--secure-port=${p}`,
    // Several kubelets share the host: each serves /healthz on its own address rather than 127.0.0.1.
    `--healthz-bind-address=${a}`,
    `--healthz-port=${healthz}`,
    `--node-status-update-frequency=${formatDuration(o.nodeStatusUpdateFrequencyMs)}`,
    `--node-lease-duration-seconds=${o.nodeLeaseDurationSeconds}`,
    `--max-pods=${o.maxPods}`,
    `--image-pull-delay=${formatDuration(o.imagePullDelayMs)}`,
    ...(o.imageCatalogs ?? []).map((f) => `--image-catalog=${f}`),
    ...(o.cpuUsageWindowMs !== undefined ? [`--cpu-usage-window=${formatDuration(o.cpuUsageWindowMs)}`] : []),
    '--v', String(o.v), `--logging-format=${o.loggingFormat}`,
    // A node group's machine: the template's capacity, labels and taints (node-groups.ts); later flags win.
    ...extraArgs,
  ], a, p, '/healthz');
  // The API port wants credentials: the supervisor and `kemu status` probe the open healthz port instead.
  return { ...spec, healthUrl: `http://${a}:${healthz}/healthz`, ports: { ...spec.ports, 'healthz-port': healthz } };
}

/**
 * Lays the components out on loopback: each process on its own address in the lab's /24, on Kubernetes'
 * port for its kind when that is free there (else a port the kernel picks; the apiservers always share one).
 */
export async function planTopology(o: TopologyOptions, taken: Set<string>): Promise<Topology> {
  const missing: NodeKind[] = [];
  const wanted = (kind: NodeKind, n: number) => {
    if (n > 0 && !isImplemented(kind)) {
      missing.push(kind);
      return 0;
    }
    return n;
  };
  const counts = {
    apiserver: wanted('apiserver', o.apiservers),
    'controller-manager': wanted('controller-manager', o.controllerManagers),
    scheduler: wanted('scheduler', o.schedulers),
    'addon-manager': wanted('addon-manager', o.addonManagers ?? 0),
    worker: wanted('worker', o.workers),
  };
  const addr = labAddresses(o.address, counts);
  // Every component reaches the balancer over HTTPS with its own kubeconfig (its certificate and the CA embedded).
  const pki = labPkiFiles(o.dataDir);
  const v = ['--v', String(o.v), `--logging-format=${o.loggingFormat}`];
  const leaderFlags = [
    `--leader-elect-lease-duration=${formatDuration(o.leaseDurationMs)}`,
    `--leader-elect-renew-deadline=${formatDuration(o.renewDeadlineMs)}`,
    `--leader-elect-retry-period=${formatDuration(o.retryPeriodMs)}`,
  ];
  const node = (kind: NodeKind, name: string, args: string[], address: string, port: number, probe: string) => nodeSpec(pki, kind, name, args, address, port, probe);

  const apiservers: ComponentSpec[] = [];
  const apiAddresses = Array.from({ length: counts.apiserver }, (_, i) => addr.of('apiserver', i));
  const apiPort = apiAddresses.length ? await pickSharedPort(taken, apiAddresses, DEFAULT_PORTS.apiserver) : 0;
  apiAddresses.forEach((a, i) => {
    apiservers.push(
      node('apiserver', `apiserver-${i}`, [
        `--bind-address=${a}`,
        `--advertise-address=${a}`,
        `--secure-port=${apiPort}`,
        ...labApiserverTlsFlags(pki),
        ...labApiserverServiceAccountFlags(pki),
        ...labApiserverAccessFlags(pki),
        ...labApiserverKubeletFlags(pki),
        ...(o.storeFlags ?? [`--datastore-endpoint=sqlite://${path.join(o.dataDir, 'state.db')}`]),
        `--hostname-override=apiserver-${i}`,
        `--default-not-ready-toleration-seconds=${o.defaultNotReadyTolerationSeconds}`,
        `--default-unreachable-toleration-seconds=${o.defaultUnreachableTolerationSeconds}`,
        ...(o.auditPolicyFile ? auditFlags(o.auditPolicyFile, path.join(o.dataDir, 'logs', `audit-apiserver-${i}.log`)) : []),
        // As kubeadm's static pod does: the lab may run privileged pods (kube-apiserver alone refuses them).
        '--allow-privileged=true',
        ...v,
      ], a, apiPort, '/readyz'),
    );
  });
  const controllerManagers: ComponentSpec[] = [];
  for (let i = 0; i < counts['controller-manager']; i++) {
    const a = addr.of('controller-manager', i);
    const p = await pickPort(taken, a, DEFAULT_PORTS['controller-manager']);
    controllerManagers.push(
      node('controller-manager', `controller-manager-${i}`, [
        `--kubeconfig=${pki.controllerManagerKubeconfig}`,
        ...labDelegatedAuthFlags(pki, pki.controllerManagerKubeconfig),
        // As kubeadm and seed 003: each controller writes as its own ServiceAccount, with its system:controller:* role.
        '--use-service-account-credentials=true',
        ...labControllerManagerIdentityFlags(pki),
        `--hostname-override=controller-manager-${i}`,
        `--bind-address=${a}`,
        `--secure-port=${p}`,
        ...leaderFlags,
        `--node-monitor-grace-period=${formatDuration(o.nodeMonitorGracePeriodMs)}`,
        `--node-monitor-period=${formatDuration(o.nodeMonitorPeriodMs)}`,
        ...(o.hpaSyncPeriodMs !== undefined ? [`--horizontal-pod-autoscaler-sync-period=${formatDuration(o.hpaSyncPeriodMs)}`] : []),
        ...(o.hpaDownscaleStabilizationMs !== undefined ? [`--horizontal-pod-autoscaler-downscale-stabilization=${formatDuration(o.hpaDownscaleStabilizationMs)}`] : []),
        // Like kubeadm clusters: nodeipam gives every Node a spec.podCIDR, from which the kubelets take pod IPs.
        '--allocate-node-cidrs=true',
        '--cluster-cidr=10.200.0.0/16',
        ...v,
      ], a, p, '/healthz'),
    );
  }
  const schedulers: ComponentSpec[] = [];
  for (let i = 0; i < counts.scheduler; i++) {
    const a = addr.of('scheduler', i);
    const p = await pickPort(taken, a, DEFAULT_PORTS.scheduler);
    schedulers.push(
      node('scheduler', `scheduler-${i}`, [
        `--kubeconfig=${pki.schedulerKubeconfig}`,
        ...labDelegatedAuthFlags(pki, pki.schedulerKubeconfig),
        `--hostname-override=scheduler-${i}`,
        `--bind-address=${a}`,
        `--secure-port=${p}`,
        ...leaderFlags,
        ...v,
      ], a, p, '/healthz'),
    );
  }
  // kube-addon-manager serves no port (as the real one): the supervisor counts it up once started. It writes as
  // the admin (system:masters), as the real one's token on GCE masters does.
  const addonManagers: ComponentSpec[] = [];
  for (let i = 0; i < counts['addon-manager']; i++) {
    const name = `addon-manager-${i}`;
    addonManagers.push({
      name,
      kind: 'addon-manager',
      command: process.execPath,
      args: [
        binPath('addon-manager'),
        `--kubeconfig=${path.join(o.dataDir, 'admin.kubeconfig')}`,
        `--addons-dir=${labAddonsDir(o.dataDir)}`,
        `--period=${formatDuration(o.addonCheckIntervalMs ?? 60_000)}`,
        `--hostname-override=${name}`,
        ...leaderFlags,
        ...v,
      ],
      address: addr.of('addon-manager', i),
      ports: {},
    });
  }
  const workers: ComponentSpec[] = [];
  for (let i = 0; i < counts.worker; i++) workers.push(await planWorker(o, i, `worker-${i}`, taken));
  return { apiservers, controllerManagers, schedulers, addonManagers, workers, missing };
}

/** The cluster-autoscaler's metrics and health port (its --address default). */
export const CLUSTER_AUTOSCALER_PORT = 8085;

/**
 * The i-th cluster-autoscaler (address .6i): the kubeconfig with the token of its ServiceAccount
 * kube-system/cluster-autoscaler (cluster-autoscaler-identity.ts),
 * the kemu cloud provider with the cloud config `kemu up` wrote, one --nodes per group, the lab's leader-election
 * timing, then the user's --autoscaler-arg flags (they win, being last).
 */
export async function planClusterAutoscaler(
  o: TopologyOptions,
  i: number,
  taken: Set<string>,
  cloudConfig: string,
  groups: readonly { name: string; min: number; max: number }[],
  extraArgs: readonly string[],
): Promise<ComponentSpec> {
  const a = labAddresses(o.address, { 'cluster-autoscaler': i + 1 }).of('cluster-autoscaler', i);
  const p = await pickPort(taken, a, CLUSTER_AUTOSCALER_PORT);
  return {
    name: `cluster-autoscaler-${i}`,
    kind: 'cluster-autoscaler',
    command: process.execPath,
    args: [
      binPath('cluster-autoscaler'),
      `--kubeconfig=${path.join(o.dataDir, 'cluster-autoscaler.kubeconfig')}`,
      '--cloud-provider=kemu',
      `--cloud-config=${cloudConfig}`,
      ...groups.map((g) => `--nodes=${g.min}:${g.max}:${g.name}`),
      `--address=${a}:${p}`,
      `--leader-elect-lease-duration=${formatDuration(o.leaseDurationMs)}`,
      `--leader-elect-renew-deadline=${formatDuration(o.renewDeadlineMs)}`,
      `--leader-elect-retry-period=${formatDuration(o.retryPeriodMs)}`,
      '--v', String(o.v), `--logging-format=${o.loggingFormat}`,
      ...extraArgs,
    ],
    healthUrl: `http://${a}:${p}/health-check`,
    address: a,
    ports: { address: p },
  };
}

/** metrics-server's --secure-port in components.yaml (and its default). */
export const METRICS_SERVER_PORT = 10250;

/**
 * The metrics-servers (address .7i each, all on one port: the Endpoints of kube-system/metrics-server list them
 * under one port), run with components.yaml's flags: --kubelet-insecure-tls as the lab's kubelets serve
 * self-signed certificates, their identity the ServiceAccount-named certificate of metrics-server.kubeconfig, and
 * --metric-resolution from `kemu up`. Their /readyz (the first scrape stored) is open, as in components.yaml's probe.
 */
export async function planMetricsServers(o: TopologyOptions, n: number, taken: Set<string>, resolutionMs: number): Promise<ComponentSpec[]> {
  if (n === 0 || !isImplemented('metrics-server')) return [];
  const addr = labAddresses(o.address, { 'metrics-server': n });
  const addresses = Array.from({ length: n }, (_, i) => addr.of('metrics-server', i));
  const port = await pickSharedPort(taken, addresses, METRICS_SERVER_PORT);
  const pki = labPkiFiles(o.dataDir);
  return addresses.map((a, i) => ({
    ...nodeSpec(pki, 'metrics-server', `metrics-server-${i}`, [
      `--kubeconfig=${pki.metricsServerKubeconfig}`,
      `--cert-dir=${path.join(pki.dir, `metrics-server-${i}`)}`,
      `--bind-address=${a}`,
      `--secure-port=${port}`,
      '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
      '--kubelet-use-node-status-port',
      '--kubelet-insecure-tls',
      `--metric-resolution=${formatDuration(resolutionMs)}`,
      '--v', String(o.v), `--logging-format=${o.loggingFormat}`,
    ], a, port, '/readyz'),
  }));
}
