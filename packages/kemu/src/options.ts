// The flags of `kemu up` and the shared `--data-dir` flag of every other command, with their defaults.
import path from 'node:path';
import type { FlagSpecs } from '@kemu/base';

export const DATA_DIR_FLAG = {
  'data-dir': { type: 'string', default: './.kemu', usage: 'Directory holding state.db, kubeconfig, kemu.json and logs/' },
} as const satisfies FlagSpecs;

export const UP_FLAGS = {
  ...DATA_DIR_FLAG,
  workers: { type: 'int', default: 3, usage: 'Number of emulated kubelets (worker-0..N-1)' },
  apiservers: { type: 'int', default: 3, usage: 'Number of kube-apiserver replicas' },
  'controller-managers': { type: 'int', default: 3, usage: 'Number of kube-controller-manager replicas' },
  schedulers: { type: 'int', default: 3, usage: 'Number of kube-scheduler replicas' },
  'addon-managers': { type: 'int', default: 1, usage: 'Number of kube-addon-manager replicas (leader-elected; addon-manager-N on .5N), applying the manifests in DIR/addons (made with CoreDNS and metrics-server on the first start)' },
  'addon-check-interval': { type: 'duration', default: 60_000, usage: "How often the addon manager applies DIR/addons (the real one's ADDON_CHECK_INTERVAL_SEC, 60s)" },
  address: { type: 'string', default: '127.0.0.1', usage: 'Loopback address of the load balancer (the kubeconfig\'s server); the lab\'s processes take the rest of its /24: apiserver-N .1N, controller-manager-N .2N, scheduler-N .3N, addon-manager-N .5N, metrics-server-N .7N, worker-N .10N. Another lab: another /24, e.g. 127.0.1.1' },
  port: { type: 'int', default: 6443, usage: 'Port of the load balancer on --address' },
  lb: { type: 'string', default: 'auto', usage: 'Load balancer: haproxy, builtin, or auto (haproxy when installed)' },
  'leader-elect-lease-duration': { type: 'duration', default: 15_000, usage: 'Passed to controller-managers and schedulers' },
  'leader-elect-renew-deadline': { type: 'duration', default: 10_000, usage: 'Passed to controller-managers and schedulers' },
  'leader-elect-retry-period': { type: 'duration', default: 2_000, usage: 'Passed to controller-managers and schedulers' },
  'node-monitor-grace-period': { type: 'duration', default: 50_000, usage: 'Passed to controller-managers' },
  'node-monitor-period': { type: 'duration', default: 5_000, usage: 'Passed to controller-managers' },
  'horizontal-pod-autoscaler-sync-period': { type: 'duration', default: 15_000, usage: 'Passed to controller-managers: how often each HorizontalPodAutoscaler is reconciled' },
  'horizontal-pod-autoscaler-downscale-stabilization': { type: 'duration', default: 300_000, usage: 'Passed to controller-managers: an autoscaler scales down no lower than its highest recommendation of this window' },
  'default-not-ready-toleration-seconds': { type: 'int', default: 300, usage: 'Passed to apiservers: tolerationSeconds of the not-ready:NoExecute toleration added to pods without one' },
  'default-unreachable-toleration-seconds': { type: 'int', default: 300, usage: 'Passed to apiservers: tolerationSeconds of the unreachable:NoExecute toleration added to pods without one (a frozen node\'s pods are evicted this long after it goes Unknown)' },
  'node-status-update-frequency': { type: 'duration', default: 10_000, usage: 'Passed to kubelets' },
  'node-lease-duration-seconds': { type: 'int', default: 40, usage: 'Passed to kubelets' },
  'max-pods': { type: 'int', default: 110, usage: 'Pods each emulated kubelet accepts; passed to kubelets' },
  'image-pull-delay': { type: 'duration', default: 1000, usage: 'How long an emulated image pull takes (pods show ContainerCreating meanwhile; images already on the node skip it); passed to kubelets' },
  'cpu-usage-window': { type: 'duration', default: 10_000, usage: 'Passed to kubelets: the window requests a container served are averaged over into its CPU usage' },
  'image-catalog': { type: 'stringArray', default: [], usage: 'Image catalogue files (JSON or YAML) merged over the built-in one: repositories, the tags that exist there, which are private; passed to kubelets (see docs/kubelet.md)' },
  'stop-grace-period': { type: 'duration', default: 10_000, usage: 'Time between SIGTERM and SIGKILL when stopping a component' },
  v: { type: 'int', default: 0, usage: 'Log verbosity passed to every component' },
  'logging-format': { type: 'string', default: 'text', usage: 'Log format passed to every component: "text" (klog lines) or "json"' },
  'audit-policy-file': { type: 'string', default: '', usage: 'Audit policy of the apiservers (default: DIR/audit-policy.yaml, written by kemu up); each writes DIR/logs/audit-apiserver-N.log' },
  'kubelet-bootstrap': { type: 'bool', default: true, usage: 'Kubelets get their client certificates by TLS bootstrapping (seed 003 section 8: a bootstrap token, CSRs auto-approved and signed by the controller-manager); false: kemu issues each one its certificate (as it must with --controller-managers=0)' },
  store: { type: 'string', default: 'sqlite', usage: 'The apiservers\' store: sqlite (DIR/state.db, one file every apiserver opens) or etcd (a three-member etcd cluster with TLS, etcd-0..2 on .40-.42 of the lab\'s /24; needs Debian\'s etcd-server)' },
  'audit-log': { type: 'bool', default: true, usage: 'Write the apiservers\' audit logs (--audit-log=false turns them off)' },
  'node-group': { type: 'stringArray', default: [], usage: 'A node group for the cluster-autoscaler: name=pool,min=1,max=5[,cpu=4][,memory=16Gi][,pods=110][,labels=k=v,...][,taints=k=v:NoSchedule,...]; its min workers (pool-0, pool-1, …) start with the lab, the autoscaler adds and removes the rest (repeatable)' },
  'metrics-servers': { type: 'int', default: 1, usage: 'Number of metrics-server replicas (metrics-server-N on .7N) behind the aggregated APIService v1beta1.metrics.k8s.io (what `kubectl top` and HPAs read); 0: no Metrics API' },
  'metric-resolution': { type: 'duration', default: 15_000, usage: "Passed to metrics-servers: how often they scrape the kubelets (components.yaml's 15s)" },
  'cluster-autoscalers': { type: 'int', default: 1, usage: 'Number of cluster-autoscaler replicas (leader-elected) when there is a --node-group' },
  'autoscaler-arg': { type: 'stringArray', default: [], usage: 'A flag passed to the cluster-autoscaler, e.g. --autoscaler-arg=--scale-down-unneeded-time=1m (repeatable)' },
} as const satisfies FlagSpecs;

export function resolveDataDir(dir: string): string {
  return path.resolve(dir);
}

/** `kemu pki`: the SANs of apiserver.pem and the server of the kubeconfigs; see @kemu/pki's ensureClusterPki. */
export const PKI_FLAGS = {
  ...DATA_DIR_FLAG,
  'apiserver-addresses': { type: 'stringArray', default: [], usage: 'Address (IP or DNS name) of every apiserver, each a SAN of apiserver.pem' },
  'lb-address': { type: 'string', default: '127.0.0.1', usage: "The balancer's address, a SAN of apiserver.pem" },
  'extra-sans': { type: 'stringArray', default: [], usage: 'More SANs for apiserver.pem (IP addresses or DNS names)' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12', usage: "Its first address (the kubernetes Service's ClusterIP) is a SAN of apiserver.pem" },
  server: { type: 'string', default: 'https://127.0.0.1:6443', usage: 'The server URL written into admin, controller-manager and scheduler.kubeconfig' },
  force: { type: 'bool', default: false, usage: 'Regenerate every certificate, key and kubeconfig, the CAs included' },
} as const satisfies FlagSpecs;
