// One scrape of every node's kubelet, as metrics-server's scraper and kubelet client do it: GET
// https://<address>:<port>/metrics/resource, the address the first of the Node's status.addresses in
// --kubelet-preferred-address-types order, the port --kubelet-port or (with --kubelet-use-node-status-port) the
// Node's daemonEndpoints.kubeletEndpoint.Port; authenticating with the kubeconfig's client certificate or bearer
// token, the kubelet's certificate checked against the kubeconfig's CA (or --kubelet-certificate-authority) unless
// --kubelet-insecure-tls. Nodes are scraped at once, each within the request timeout; a failed node is logged and
// left out of the batch (it has no metrics until a later scrape reaches it).
import https from 'node:https';
import net from 'node:net';
import type { Node } from '@kemu/api';
import type { Logger } from '@kemu/base';
import { decodeResourceMetrics, type MetricsBatch } from './decode.ts';

export interface KubeletClientOptions {
  preferredAddressTypes: readonly string[];
  port: number;
  useNodeStatusPort: boolean;
  insecureTls: boolean;
  /** PEM CA bundle verifying the kubelets (the kubeconfig's, or --kubelet-certificate-authority). */
  ca?: Buffer | string;
  cert?: Buffer | string;
  key?: Buffer | string;
  token?: string;
  timeoutMs: number;
}

/** The address metrics-server dials for a node; throws when it has none of the preferred types. */
export function nodeAddress(node: Node, types: readonly string[]): string {
  const addrs = node.status?.addresses ?? [];
  for (const t of types) {
    const a = addrs.find((x) => x.type === t && x.address);
    if (a) return a.address;
  }
  throw new Error(`node ${node.metadata.name ?? ''} has no valid address of the types [${types.join(' ')}]`);
}

export function kubeletUrl(node: Node, o: Pick<KubeletClientOptions, 'preferredAddressTypes' | 'port' | 'useNodeStatusPort'>): string {
  const statusPort = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  const port = o.useNodeStatusPort && statusPort !== 0 ? statusPort : o.port;
  const host = nodeAddress(node, o.preferredAddressTypes);
  return `https://${net.isIPv6(host) ? `[${host}]` : host}:${port}/metrics/resource`;
}

const agent = new https.Agent({ keepAlive: true });

/** GET one kubelet's /metrics/resource; rejects with metrics-server's texts. */
export function getMetrics(url: string, o: KubeletClientOptions, now: () => number = Date.now): Promise<MetricsBatch> {
  const start = now();
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        agent,
        rejectUnauthorized: !o.insecureTls,
        ...(o.ca && !o.insecureTls ? { ca: o.ca } : {}),
        ...(o.cert && o.key ? { cert: o.cert, key: o.key } : {}),
        headers: { 'user-agent': 'metrics-server/v0.7.2 (linux/amd64) kemu', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
        timeout: o.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`request failed, status: "${res.statusCode ?? 0} ${res.statusMessage ?? ''}"`));
          resolve(decodeResourceMetrics(Buffer.concat(chunks).toString('utf8'), start));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded`)));
    req.on('error', (e) => reject(e.message.startsWith('Get "') ? e : new Error(`Get "${url}": ${e.message}`)));
  });
}

/** Scrapes every node at once; the batches of the nodes that answered, by node name. */
export async function scrapeNodes(nodes: readonly Node[], o: KubeletClientOptions, logger: Logger): Promise<Map<string, MetricsBatch>> {
  const out = new Map<string, MetricsBatch>();
  await Promise.all(
    nodes.map(async (node) => {
      const name = node.metadata.name ?? '';
      try {
        out.set(name, await getMetrics(kubeletUrl(node, o), o));
      } catch (e) {
        logger.error({ node: name, err: (e as Error).message }, 'Failed to scrape node');
      }
    }),
  );
  return out;
}
