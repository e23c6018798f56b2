// The Node an emulated kubelet registers and the status it posts: labels, taints, capacity and allocatable,
// addresses, nodeInfo, images, and the four conditions with Kubernetes' reasons and messages.
import os from 'node:os';
import { createHash } from 'node:crypto';
import { formatTime, parseTime, type Condition, type ContainerImage, type Node, type NodeStatus, type Taint } from '@kemu/api';
import { imageID, normalizeImage } from '../pods/status.ts';

export const KUBELET_VERSION = 'v1.31.0';
export const RUNTIME_VERSION = 'kemu://0.1.0';

export interface NodeIdentity {
  name: string;
  /** Position among the nodes of this process (0 for a single node). */
  index: number;
  ip: string;
  /** Pod CIDR used while the Node has no spec.podCIDR. */
  fallbackPodCIDR: string;
}

export interface NodeConfig {
  labels: Record<string, string>;
  taints: Taint[];
  capacity: { cpu: string; memory: string; 'ephemeral-storage': string; pods: string };
  kubeletPort: number;
}

export function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };
  return map[process.arch] ?? process.arch;
}

function hex(seed: string, len: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, len);
}

function uuidFrom(seed: string): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function nodeLabels(id: NodeIdentity, cfg: NodeConfig): Record<string, string> {
  const arch = goArch();
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': id.name,
    'kubernetes.io/os': 'linux',
    ...cfg.labels,
  };
}

/** The Node object the kubelet creates when it registers. */
export function buildNode(id: NodeIdentity, cfg: NodeConfig, bootID: string, images: Iterable<string>, now: number): Node {
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: id.name,
      labels: nodeLabels(id, cfg),
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {},
    status: buildNodeStatus(id, cfg, bootID, images, now, undefined),
  };
  if (cfg.taints.length) node.spec = { taints: cfg.taints.map((t) => ({ ...t })) };
  return node;
}

const CONDITIONS: readonly [string, 'True' | 'False', string, string][] = [
  ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
];

/**
 * What the kubelet keeps of the Node's conditions as the API has them: for each of the four (in CONDITIONS'
 * order) the status as one letter in `sig` ('T', 'F', 'U'nknown, '-' absent) and its lastTransitionTime in ms.
 * A few bytes instead of the condition objects, for a thousand nodes.
 */
export interface ConditionMemo {
  sig: string;
  since: number[];
}

const letter = (status: string | undefined) => (status === 'True' ? 'T' : status === 'False' ? 'F' : status === undefined ? '-' : 'U');

export function conditionMemo(conditions: readonly Condition[] | undefined): ConditionMemo {
  let sig = '';
  const since: number[] = [];
  for (const [type] of CONDITIONS) {
    const c = conditions?.find((x) => x.type === type);
    sig += letter(c?.status);
    since.push(c?.lastTransitionTime ? parseTime(c.lastTransitionTime) : NaN);
  }
  return { sig, since };
}

/** The status letter `memo` holds for a condition type ('-' when unknown). */
export function memoStatus(memo: ConditionMemo | undefined, type: string): string {
  const i = CONDITIONS.findIndex(([t]) => t === type);
  return memo?.sig[i] ?? '-';
}

export function nodeConditions(now: number, previous: ConditionMemo | undefined): Condition[] {
  const t = formatTime(now);
  return CONDITIONS.map(([type, status, reason, message], i) => {
    const prevSince = previous?.since[i] ?? NaN;
    const kept = previous?.sig[i] === letter(status) && Number.isFinite(prevSince);
    return { type, status, lastHeartbeatTime: t, lastTransitionTime: kept ? formatTime(prevSince) : t, reason, message };
  });
}

/** An emulated image's size in bytes: fixed per name (node.status.images and the Pulled event agree). */
export function imageSize(image: string): number {
  return 5_000_000 + (parseInt(hex(image, 6), 16) % 200_000_000);
}

export function imageList(images: Iterable<string>): ContainerImage[] {
  const out: ContainerImage[] = [];
  for (const image of images) {
    out.push({ names: [imageID(image), normalizeImage(image)], sizeBytes: imageSize(image) });
  }
  // Largest first, as the kubelet reports them.
  return out.sort((a, b) => (b.sizeBytes ?? 0) - (a.sizeBytes ?? 0));
}

export function buildNodeStatus(
  id: NodeIdentity,
  cfg: NodeConfig,
  bootID: string,
  images: Iterable<string>,
  now: number,
  previous: ConditionMemo | undefined,
): NodeStatus {
  const capacity = { ...cfg.capacity, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' };
  return {
    capacity,
    allocatable: { ...capacity },
    conditions: nodeConditions(now, previous),
    addresses: [
      { type: 'InternalIP', address: id.ip },
      { type: 'Hostname', address: id.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: cfg.kubeletPort } },
    nodeInfo: {
      machineID: hex(`machine/${id.name}`, 32),
      systemUUID: uuidFrom(`system/${id.name}`),
      bootID,
      kernelVersion: os.release(),
      osImage: 'kemu emulated node',
      containerRuntimeVersion: RUNTIME_VERSION,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: 'linux',
      architecture: goArch(),
    },
    images: imageList(images),
  };
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`invalid IPv4 address "${ip}"`);
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
}

export function intToIp(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCIDR(cidr: string): { base: number; prefix: number } {
  const [ip, bits] = cidr.split('/');
  const prefix = Number(bits);
  if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new Error(`invalid CIDR address: ${cidr}`);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (ipToInt(ip) & mask) >>> 0, prefix };
}

/** Node names, IPs and fallback pod CIDRs for the nodes of this process. */
export function nodeIdentities(hostname: string, count: number, nodeIP: string, podCIDR: string): NodeIdentity[] {
  const out: NodeIdentity[] = [];
  const hostHash = fnv(hostname);
  for (let i = 0; i < count; i++) {
    const name = count === 1 ? hostname : `${hostname}-${i}`;
    // 10.240.0.0/12, skipping .0 and .255 host parts.
    const ip = nodeIP ? intToIp(ipToInt(nodeIP) + i) : intToIp(ipToInt('10.240.0.0') + 1 + (fnv(name) % 0xffffe));
    let fallback: string;
    if (podCIDR) {
      const { base, prefix } = parseCIDR(podCIDR);
      fallback = count === 1 || prefix > 24 ? podCIDR : `${intToIp((base + i * 256) >>> 0)}/24`;
    } else {
      // One /24 out of 10.128.0.0/9; consecutive for the nodes of one process, so they never collide.
      fallback = `${intToIp(ipToInt('10.128.0.0') + (((hostHash + i) % 32768) << 8))}/24`;
    }
    out.push({ name, index: i, ip, fallbackPodCIDR: fallback });
  }
  return out;
}
