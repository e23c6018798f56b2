// Where each process of a lab listens. All of 127.0.0.0/8 is local on Linux, so a lab takes one /24 of it and
// gives every process an address of its own: the balancer on --address (127.0.0.1), apiserver-N on .1N,
// controller-manager-N on .2N, scheduler-N on .3N, etcd-N (with --store etcd) on .4N, addon-manager-N on .5N, cluster-autoscaler-N (with --node-group) on .6N, metrics-server-N on .7N, worker-N (its node's InternalIP) on .10N. Processes of one
// kind then share Kubernetes' own ports (6443, 10257, 10259, 10250), and `default/kubernetes` lists the
// apiservers on one port, as on real machines. Another lab takes another /24 (--address 127.0.1.1).
import type { ComponentKind } from './topology.ts';

/** The first host octet of each kind's range, and how many processes of that kind the range holds. */
export const ADDRESS_RANGES: Record<Exclude<ComponentKind, 'lb'>, { first: number; size: number }> = {
  apiserver: { first: 10, size: 10 },
  'controller-manager': { first: 20, size: 10 },
  scheduler: { first: 30, size: 10 },
  etcd: { first: 40, size: 10 },
  'addon-manager': { first: 50, size: 10 },
  'cluster-autoscaler': { first: 60, size: 10 },
  'metrics-server': { first: 70, size: 10 },
  worker: { first: 100, size: 155 },
};

export class AddressError extends Error {}

/** Parses an IPv4 address in 127.0.0.0/8; throws an AddressError naming the flag otherwise. */
export function parseLoopback(address: string, flag = '--address'): [number, number, number, number] {
  const parts = address.split('.');
  const octets = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255)))
    throw new AddressError(`invalid argument "${address}" for "${flag}" flag: not an IPv4 address`);
  if (octets[0] !== 127) throw new AddressError(`invalid argument "${address}" for "${flag}" flag: the lab runs on loopback, want an address in 127.0.0.0/8`);
  return octets as [number, number, number, number];
}

export interface LabAddresses {
  /** The balancer's address (the kubeconfig's server). */
  lb: string;
  /** The address of the i-th process of a kind. */
  of(kind: Exclude<ComponentKind, 'lb'>, i: number): string;
}

/** The lab's addresses in the /24 of `lb`; throws when a count does not fit its range or `lb` sits in one. */
export function labAddresses(lb: string, counts: Partial<Record<Exclude<ComponentKind, 'lb'>, number>> = {}): LabAddresses {
  const [a, b, c, d] = parseLoopback(lb);
  for (const [kind, r] of Object.entries(ADDRESS_RANGES)) {
    const n = counts[kind as Exclude<ComponentKind, 'lb'>] ?? 0;
    if (n > r.size) throw new AddressError(`at most ${r.size} ${kind} processes fit a lab's addresses (${a}.${b}.${c}.${r.first}-${r.first + r.size - 1}); got ${n}`);
    if (d >= r.first && d < r.first + r.size)
      throw new AddressError(`--address ${lb}: .${r.first}-.${r.first + r.size - 1} of the lab's /24 are the ${kind} addresses; use .1-.9 (e.g. ${a}.${b}.${c}.1)`);
  }
  return {
    lb,
    of(kind, i) {
      const r = ADDRESS_RANGES[kind];
      if (i < 0 || i >= r.size) throw new AddressError(`no address for ${kind}-${i}`);
      return `${a}.${b}.${c}.${r.first + i}`;
    },
  };
}
