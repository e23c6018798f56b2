// The X-Kemu-Lease request header (a kemu extension; Kubernetes has no fencing): a leader-elected component
// names the Lease it holds and the term it holds it in on every write, so the apiserver can refuse a write
// from a leader that has since been deposed (frozen, partitioned, or its request delayed in the network).
//   X-Kemu-Lease: kube-system/kube-scheduler;holder=<holderIdentity>;transitions=<leaseTransitions>
// One definition of the format for the client that sends it and the apiserver that checks it.

/** The header's name as sent (HTTP header names are case-insensitive; Node lower-cases them on receipt). */
export const LEASE_FENCE_HEADER = 'X-Kemu-Lease';

export interface LeaseFenceToken {
  namespace: string;
  name: string;
  /** The Lease's spec.holderIdentity while the sender holds it. */
  holder: string;
  /** The Lease's spec.leaseTransitions in the sender's term. */
  transitions: number;
}

export const LEASE_FENCE_FORMAT = '<namespace>/<name>;holder=<identity>;transitions=<n>';

export function formatLeaseFence(t: LeaseFenceToken): string {
  return `${t.namespace}/${t.name};holder=${t.holder};transitions=${t.transitions}`;
}

// Namespace and name are DNS labels/subdomains; an identity is "<hostname>_<uuid>" but may be any header-safe
// text without ';' (client-go's --leader-elect identity is free-form).
const TOKEN = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?);holder=([^;\s]+);transitions=(0|[1-9][0-9]{0,9})$/;

/** The token in a header value, or undefined when it is not in the format above. */
export function parseLeaseFence(value: string): LeaseFenceToken | undefined {
  const m = TOKEN.exec(value.trim());
  if (!m) return undefined;
  const transitions = Number(m[6]);
  if (!Number.isSafeInteger(transitions) || transitions > 2 ** 31 - 1) return undefined;
  return { namespace: m[1] as string, name: m[3] as string, holder: m[5] as string, transitions };
}
