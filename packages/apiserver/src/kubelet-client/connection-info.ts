// Where a node's kubelet is reached (kubeletclient.NodeConnectionInfoGetter): the first of the node's
// addresses in --kubelet-preferred-address-types order, on the port it reports in
// status.daemonEndpoints.kubeletEndpoint.Port (else kube-apiserver's default, 10250), over HTTPS.
import type { KubeObject } from '@kemu/api';

export interface ConnectionInfo {
  scheme: 'https';
  hostname: string;
  port: number;
}

interface NodeAddress {
  type?: string;
  address?: string;
}

/** Go's net.JoinHostPort: an IPv6 address goes in brackets. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** nodeutil.NoMatchError's text: the addresses as Go's %v prints a []NodeAddress. */
function noMatch(addresses: readonly NodeAddress[]): string {
  return `no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ')}]`;
}

/** Thrown for a node with none of the preferred address types (kube-apiserver answers 500 with its text). */
export class NoPreferredAddressError extends Error {}

export function nodeConnectionInfo(node: KubeObject, preferredAddressTypes: readonly string[], defaultPort: number): ConnectionInfo {
  const status = (node.status ?? {}) as { addresses?: NodeAddress[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
  const addresses = status.addresses ?? [];
  let hostname: string | undefined;
  for (const type of preferredAddressTypes) {
    hostname = addresses.find((a) => a.type === type)?.address;
    if (hostname !== undefined) break;
  }
  if (hostname === undefined) throw new NoPreferredAddressError(noMatch(addresses));
  const reported = status.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  return { scheme: 'https', hostname, port: reported > 0 ? reported : defaultPort };
}
