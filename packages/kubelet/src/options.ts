// kubelet's flags: Kubernetes' names and defaults where the kubelet has them, plus the emulation knobs
// (capacity, image pull delay, --node-count). Durations are in milliseconds.
import os from 'node:os';
import { LOGGING_FORMAT_FLAG, parseFlags, type FlagValues } from '@kemu/base';
import { tryParseQuantity, type Taint, type TaintEffect } from '@kemu/api';
import { kubeletServingFlags } from '@kemu/client';
import { CERTIFICATE_FLAGS } from './certificate/flags.ts';
import { IMAGE_FLAGS } from './images/flags.ts';
import { loadImageCatalog, type ImageCatalog } from './images/catalog.ts';
import { LOG_FLAGS, containerLogMaxBytes } from './logs/flags.ts';
import { HEALTHZ_FLAGS, healthzFlagError } from './server/healthz.ts';
import { PROXY_FLAGS } from './proxy/flags.ts';

export const FLAGS = {
  master: { type: 'string', default: '', usage: 'The address of the Kubernetes API server (overrides any value in kubeconfig).' },
  kubeconfig: { type: 'string', default: '', usage: 'Path to a kubeconfig file, specifying how to connect to the API server.' },
  'kube-api-qps': { type: 'float', default: 50, usage: 'QPS to use while talking with kubernetes apiserver (per emulated node).' },
  'kube-api-burst': { type: 'int', default: 100, usage: 'Burst to use while talking with kubernetes apiserver (per emulated node).' },
  'hostname-override': { type: 'string', default: '', usage: 'If non-empty, will use this string as identification instead of the actual hostname (the node name).' },
  'node-labels': { type: 'stringArray', default: [], usage: 'Labels to add when registering the node in the cluster. Labels must be key=value pairs separated by \',\'.' },
  'register-with-taints': { type: 'stringArray', default: [], usage: 'Register the node with the given list of taints (comma separated "<key>=<value>:<effect>").' },
  'register-node': { type: 'bool', default: true, usage: 'Register the node with the apiserver.' },
  'max-pods': { type: 'int', default: 110, usage: 'Number of Pods that can run on this Kubelet.' },
  'capacity-cpu': { type: 'string', default: '4', usage: 'Emulated node CPU capacity (a quantity: 4, 3500m).' },
  'capacity-memory': { type: 'string', default: '16Gi', usage: 'Emulated node memory capacity (a quantity: 16Gi).' },
  'capacity-ephemeral-storage': { type: 'string', default: '100Gi', usage: 'Emulated node ephemeral-storage capacity (a quantity).' },
  'node-ip': { type: 'string', default: '', usage: 'IP address of the node (with --node-count, the first node\'s; the others count up). Default: derived from the node name in 10.240.0.0/12.' },
  'pod-cidr': { type: 'string', default: '', usage: 'The CIDR to use for pod IP addresses when the Node has no spec.podCIDR (with --node-count, split into one /24 per node).' },
  'node-status-update-frequency': { type: 'duration', default: 10_000, usage: 'Specifies how often kubelet computes node status; posted when it changed.' },
  'node-status-report-frequency': { type: 'duration', default: 300_000, usage: 'How often the kubelet posts node status when it did not change.' },
  'node-lease-duration-seconds': { type: 'int', default: 40, usage: 'The duration the Kubelet will set on its corresponding Lease (renewed every quarter of it).' },
  'image-pull-delay': { type: 'duration', default: 0, usage: 'Emulation: how long pulling an image not yet on the node takes.' },
  'cpu-usage-window': { type: 'duration', default: 10_000, usage: 'Emulation: the window requests a container served are averaged over into its CPU usage (cAdvisor\'s housekeeping interval; at most 1m). The pod annotation kemu.dev/cpu-usage-window overrides it.' },
  'preloaded-images': { type: 'stringArray', default: ['registry.k8s.io/pause:3.10'], usage: 'Emulation: images already present on every node.' },
  // --image-catalog, --image-pull-backoff, --image-pull-max-backoff.
  ...IMAGE_FLAGS,
  'node-count': { type: 'int', default: 1, usage: 'Emulation: run N nodes named <hostname>-0..N-1 in this process (1: one node named <hostname>).' },
  'bind-address': { type: 'string', default: '0.0.0.0', usage: 'The IP address for the Kubelet to serve on.' },
  'secure-port': { type: 'int', default: 10250, usage: 'The port on which the Kubelet serves HTTPS with authentication and authorization: its API, /healthz and /metrics (0 disables).' },
  // TLS, client certificate and webhook authentication, AlwaysAllow/Webhook authorization (the kubelet's flags).
  ...kubeletServingFlags(),
  // --healthz-port, --healthz-bind-address: plain HTTP /healthz without authentication.
  ...HEALTHZ_FLAGS,
  // --bootstrap-kubeconfig, --rotate-certificates, --rotate-server-certificates.
  ...CERTIFICATE_FLAGS,
  // --container-log-max-size, --container-log-max-files.
  ...LOG_FLAGS,
  // The emulated kube-proxy's: --nodeport-addresses, --proxy-kubeconfig.
  ...PROXY_FLAGS,
  v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
  ...LOGGING_FORMAT_FLAG,
} as const;

export type KubeletFlags = Omit<FlagValues<typeof FLAGS>, '_'>;

export interface KubeletOptions {
  flags: KubeletFlags;
  hostname: string;
  labels: Record<string, string>;
  taints: Taint[];
  /** The image catalogue (built-in + --image-catalog); absent: the Kubelet loads it. */
  imageCatalog?: ImageCatalog;
}

const EFFECTS: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function parseLabels(items: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`invalid label "${item}": must be key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** "key=value:Effect" or "key:Effect" (Kubernetes' taint syntax). */
export function parseTaints(items: readonly string[]): Taint[] {
  return items.map((item) => {
    const colon = item.lastIndexOf(':');
    if (colon <= 0) throw new Error(`invalid taint spec: ${item}`);
    const effect = item.slice(colon + 1) as TaintEffect;
    if (!EFFECTS.includes(effect)) throw new Error(`invalid taint effect: ${effect}, unsupported taint effect`);
    const kv = item.slice(0, colon);
    const eq = kv.indexOf('=');
    const key = eq >= 0 ? kv.slice(0, eq) : kv;
    if (!key) throw new Error(`invalid taint spec: ${item}`);
    const t: Taint = { key, effect };
    if (eq >= 0) t.value = kv.slice(eq + 1);
    return t;
  });
}

/** Validated options; throws with a message naming the bad flag. */
export function resolveOptions(flags: KubeletFlags): KubeletOptions {
  for (const f of ['capacity-cpu', 'capacity-memory', 'capacity-ephemeral-storage'] as const) {
    if (tryParseQuantity(flags[f]) === undefined) throw new Error(`invalid value "${flags[f]}" for --${f}: not a quantity`);
  }
  if (flags['node-count'] < 1) throw new Error('--node-count must be at least 1');
  if (flags['max-pods'] < 1) throw new Error('--max-pods must be at least 1');
  if (flags['node-lease-duration-seconds'] < 1) throw new Error('--node-lease-duration-seconds must be positive');
  if (flags['node-status-update-frequency'] <= 0) throw new Error('--node-status-update-frequency must be positive');
  if (flags['image-pull-backoff'] <= 0) throw new Error('--image-pull-backoff must be positive');
  if (flags['image-pull-max-backoff'] < flags['image-pull-backoff']) throw new Error('--image-pull-max-backoff must not be less than --image-pull-backoff');
  let imageCatalog: ImageCatalog;
  try {
    imageCatalog = loadImageCatalog(flags['image-catalog']);
  } catch (e) {
    throw new Error(`invalid value for --image-catalog: ${(e as Error).message}`);
  }
  containerLogMaxBytes(flags);
  const healthz = healthzFlagError(flags);
  if (healthz) throw new Error(healthz);
  const hostname = (flags['hostname-override'] || os.hostname()).toLowerCase();
  return { flags, hostname, labels: parseLabels(flags['node-labels']), taints: parseTaints(flags['register-with-taints']), imageCatalog };
}

export function parseOptions(argv: string[]): KubeletOptions {
  const { _: _rest, ...flags } = parseFlags(FLAGS, argv);
  return resolveOptions(flags);
}
