// kube-proxy's flags the emulated one reads (it shares the kubelet's command line).
import { BlockList, isIP } from 'node:net';

export const PROXY_FLAGS = {
  // kemu's own: a real kube-proxy is its own process with its own --kubeconfig (seed 003's kube-proxy.kubeconfig).
  'proxy-kubeconfig': {
    type: 'string',
    default: '',
    usage:
      "kemu: the kubeconfig the emulated kube-proxy in this process uses (a kube-proxy identity, e.g. CN system:kube-proxy, which Kubernetes' default system:node-proxier binding lets watch Services and EndpointSlices). Default: the kubelet's own credentials.",
  },
  'pod-network-port': {
    type: 'int',
    default: 4789,
    usage:
      "The TCP port on the node's InternalIP where the emulated pod network carries connections to this node's pods from other kubelets' kube-proxies (0: none; endpoints here are then reachable only from this process).",
  },
  'nodeport-addresses': {
    type: 'stringArray',
    default: [],
    usage:
      "A list of CIDR ranges that contain valid node IPs, or alternatively, the single string 'primary'. NodePort connections are accepted on the node IPs in those ranges (0.0.0.0/0: on every address). Default: the node's InternalIP (--node-ip).",
  },
} as const;

/** The addresses NodePorts listen on, for a node whose InternalIP is `nodeIP`; throws on a bad value (kube-proxy's words). */
export function nodePortAddresses(values: readonly string[], nodeIP: string): string[] {
  const items = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  if (items.length === 0 || (items.length === 1 && items[0] === 'primary')) return [nodeIP];
  const out = new Set<string>();
  items.forEach((cidr, i) => {
    const m = /^(.+)\/(\d{1,3})$/.exec(cidr);
    const family = m ? isIP(m[1] ?? '') : 0;
    const bits = Number(m?.[2]);
    if (!m || family === 0 || bits > (family === 4 ? 32 : 128)) throw new Error(`KubeProxyConfiguration.nodePortAddresses[${i}]: Invalid value: "${cidr}": must be a valid CIDR`);
    if (bits === 0) {
      out.add(family === 4 ? '0.0.0.0' : '::');
      return;
    }
    const block = new BlockList();
    block.addSubnet(m[1] ?? '', bits, family === 4 ? 'ipv4' : 'ipv6');
    if (isIP(nodeIP) === family && block.check(nodeIP, family === 4 ? 'ipv4' : 'ipv6')) out.add(nodeIP);
  });
  return [...out];
}
