// ClusterIP and NodePort allocation for Services (kube-apiserver's ipallocator/portallocator): dynamic
// values from --service-cluster-ip-range / --service-node-port-range, requested values checked for range
// and availability (422 with Kubernetes' messages), released when a Service is deleted or stops using them.
// The first address of the range is only handed out on request (it belongs to default/kubernetes).
import { errors, R } from '@kemu/api';
import type { KubeObject, StatusCause } from '@kemu/api';
import type { Backend } from '@kemu/store';
import { ClaimSet } from './claims.ts';
import type { ClaimRecord, ClaimResult, Owner } from './claims.ts';
import { objectKey } from '../storage.ts';
import { contains, intToIp, ipToInt, parseCIDR, parsePortRange } from './cidr.ts';
import type { IPv4Range, PortRange } from './cidr.ts';
import { fieldErrors } from '../validation/field.ts';

export const SERVICE_IP_PREFIX = '/registry/allocations/serviceips/';
export const NODE_PORT_PREFIX = '/registry/allocations/servicenodeports/';

export interface ServiceAllocatorOptions {
  serviceClusterIPRange: string;
  serviceNodePortRange: string;
  /** A claim whose Service never appeared is reclaimed after this long (default 60 s). */
  leakGraceMs?: number;
  now?: () => number;
}

/** A claim this request created, to undo it by revision. */
interface Claimed {
  set: ClaimSet;
  value: string | number;
  revision: number;
}

function undo(claimed: Claimed[]): () => Promise<void> {
  return async () => {
    for (const c of claimed.reverse()) await c.set.releaseClaimed(c.value, c.revision);
    claimed.length = 0;
  };
}

/** Records a fresh claim for rollback; false when the value belongs to someone else. */
function took(r: ClaimResult, set: ClaimSet, value: string | number, claimed: Claimed[]): boolean {
  if (r.status === 'taken') return false;
  if (r.status === 'claimed') claimed.push({ set, value, revision: r.revision });
  return true;
}

/** The outcome of an allocation: undo it if the write fails, or finish it (release what is no longer used). */
export interface AllocationTxn {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function specOf(svc: KubeObject): Obj {
  if (!isObj(svc.spec)) svc.spec = {};
  return svc.spec as Obj;
}

function ownerOf(svc: KubeObject): Owner {
  return { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '', uid: svc.metadata.uid ?? '' };
}

function needsClusterIP(spec: Obj): boolean {
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

function needsNodePorts(spec: Obj): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

function ports(spec: Obj): Obj[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isObj) : [];
}

export class ServiceAllocator {
  readonly ipRange: IPv4Range;
  readonly portRange: PortRange;
  private readonly ips: ClaimSet;
  private readonly nodePorts: ClaimSet;

  constructor(
    private readonly backend: Backend,
    opts: ServiceAllocatorOptions,
  ) {
    this.ipRange = parseCIDR(opts.serviceClusterIPRange);
    this.portRange = parsePortRange(opts.serviceNodePortRange);
    const claimOpts = {
      ownerExists: (c: ClaimRecord) => this.ownerExists(c),
      ...(opts.leakGraceMs !== undefined ? { leakGraceMs: opts.leakGraceMs } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    };
    this.ips = new ClaimSet(backend, SERVICE_IP_PREFIX, claimOpts);
    this.nodePorts = new ClaimSet(backend, NODE_PORT_PREFIX, claimOpts);
  }

  /** The stored Service a claim names (with its uid, when the claim records one). */
  private async ownerExists(c: ClaimRecord): Promise<boolean> {
    if (c.name === undefined || c.namespace === undefined) return false;
    const kv = await this.backend.get(objectKey(R.services, c.namespace, c.name));
    if (!kv) return false;
    if (c.uid === undefined) return true;
    try {
      const o = JSON.parse(kv.value) as { metadata?: { uid?: unknown } };
      return o.metadata?.uid === c.uid;
    } catch {
      return true; // unreadable: assume held rather than hand the value out twice
    }
  }

  private invalid(svc: KubeObject, cause: StatusCause): Error {
    return errors.invalid('', 'Service', svc.metadata.name ?? '', [cause]);
  }

  /** Allocates the Service's cluster IP and node ports in place (before it is stored). */
  async allocateForCreate(svc: KubeObject, opts: { dryRun?: boolean } = {}): Promise<AllocationTxn> {
    const claimed: Claimed[] = [];
    const rollback = undo(claimed);
    try {
      const spec = specOf(svc);
      if (needsClusterIP(spec)) await this.allocateIP(svc, spec, claimed, !!opts.dryRun);
      if (needsNodePorts(spec)) await this.allocatePorts(svc, spec, new Set(), claimed, !!opts.dryRun);
    } catch (e) {
      await rollback();
      throw e;
    }
    return { commit: async () => undefined, rollback };
  }

  /**
   * On update: claims node ports the Service newly needs (a ClusterIP change is refused by validation);
   * commit() releases what the old object held and the new one does not.
   */
  async allocateForUpdate(svc: KubeObject, old: KubeObject, opts: { dryRun?: boolean } = {}): Promise<AllocationTxn> {
    const claimed: Claimed[] = [];
    const rollback = undo(claimed);
    const owner = ownerOf(svc);
    const spec = specOf(svc);
    const oldSpec = specOf(old);
    const oldPorts = new Set(needsNodePorts(oldSpec) ? ports(oldSpec).map((p) => p.nodePort).filter((n): n is number => typeof n === 'number' && n > 0) : []);
    try {
      if (needsClusterIP(spec) && !needsClusterIP(oldSpec)) await this.allocateIP(svc, spec, claimed, !!opts.dryRun);
      if (needsNodePorts(spec)) await this.allocatePorts(svc, spec, oldPorts, claimed, !!opts.dryRun);
      else for (const p of ports(spec)) delete p.nodePort;
    } catch (e) {
      await rollback();
      throw e;
    }
    return {
      rollback,
      commit: async () => {
        if (opts.dryRun) return;
        const newPorts = new Set(needsNodePorts(spec) ? ports(spec).map((p) => p.nodePort) : []);
        for (const p of oldPorts) if (!newPorts.has(p)) await this.nodePorts.releaseOwned(p, owner);
        const oldIP = oldSpec.clusterIP;
        if (typeof oldIP === 'string' && oldIP !== '' && oldIP !== 'None' && spec.clusterIP !== oldIP) await this.ips.releaseOwned(oldIP, owner);
      },
    };
  }

  /** Frees everything a deleted Service held. */
  async release(svc: KubeObject): Promise<void> {
    const spec = specOf(svc);
    const owner = ownerOf(svc);
    const ip = spec.clusterIP;
    if (typeof ip === 'string' && ip !== '' && ip !== 'None') await this.ips.releaseOwned(ip, owner);
    for (const p of ports(spec)) if (typeof p.nodePort === 'number' && p.nodePort > 0) await this.nodePorts.releaseOwned(p.nodePort, owner);
  }

  private async allocateIP(svc: KubeObject, spec: Obj, claimed: Claimed[], dryRun: boolean): Promise<void> {
    const owner = ownerOf(svc);
    const requested = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : Array.isArray(spec.clusterIPs) ? spec.clusterIPs[0] : undefined;
    if (typeof requested === 'string' && requested !== '') {
      const fail = (why: string): Error =>
        this.invalid(svc, fieldErrors.invalid('spec.clusterIPs', [requested], `failed to allocate IP ${requested}: ${why}`));
      const n = ipToInt(requested);
      if (n === undefined || !contains(this.ipRange, n))
        throw fail(`the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${this.ipRange.cidr}`);
      if (dryRun) {
        if (!(await this.ips.isFree(requested, owner))) throw fail('provided IP is already allocated');
      } else {
        if (!took(await this.ips.claim(requested, owner), this.ips, requested, claimed)) throw fail('provided IP is already allocated');
      }
      spec.clusterIP = requested;
      spec.clusterIPs = [requested];
      return;
    }
    const ip = await this.pickIP(owner, claimed, dryRun);
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }

  private async pickIP(owner: Owner, claimed: Claimed[], dryRun: boolean): Promise<string> {
    const { network, size } = this.ipRange;
    const usable = size - 2;
    const taken = await this.ips.taken();
    // Like Kubernetes, dynamic allocation starts above a small band kept for requested addresses.
    const band = Math.min(Math.max(16, Math.floor(size / 16)), 256);
    const start = usable > band * 2 ? band : 1;
    for (let i = 0; i < usable; i++) {
      const offset = 1 + ((start - 1 + i) % usable);
      if (offset === 1) continue; // the kubernetes Service's address
      const ip = intToIp(network + offset);
      if (taken.has(ip)) continue;
      if (dryRun) return ip;
      if (!took(await this.ips.claim(ip, owner), this.ips, ip, claimed)) continue;
      return ip;
    }
    throw errors.internal(`failed to allocate a serviceIP: range is full`);
  }

  private async allocatePorts(
    svc: KubeObject,
    spec: Obj,
    alreadyOurs: Set<number>,
    claimed: Claimed[],
    dryRun: boolean,
  ): Promise<void> {
    const owner = ownerOf(svc);
    const { base, size, text } = this.portRange;
    const list = ports(spec);
    // Requested ports first, so a dynamic pick never takes one the same Service asked for.
    const inThisService = new Map<number, true>();
    for (const [i, p] of list.entries()) {
      const n = p.nodePort;
      if (n === undefined || n === null || n === 0) continue;
      const field = `spec.ports[${i}].nodePort`;
      if (typeof n !== 'number' || n < base || n >= base + size)
        throw this.invalid(svc, fieldErrors.invalid(field, n, `provided port is not in the valid range. The range of valid ports is ${text}`));
      if (inThisService.has(n) || alreadyOurs.has(n)) {
        inThisService.set(n, true);
        continue;
      }
      const ok = dryRun ? await this.nodePorts.isFree(n, owner) : took(await this.nodePorts.claim(n, owner), this.nodePorts, n, claimed);
      if (!ok) throw this.invalid(svc, fieldErrors.invalid(field, n, 'provided port is already allocated'));
      inThisService.set(n, true);
    }
    const unassigned = list.filter((p) => p.nodePort === undefined || p.nodePort === null || p.nodePort === 0);
    if (unassigned.length === 0) return;
    const taken = await this.nodePorts.taken();
    let offset = 0;
    for (const p of unassigned) {
      let got: number | undefined;
      for (; offset < size; offset++) {
        const n = base + offset;
        if (taken.has(String(n)) || inThisService.has(n)) continue;
        if (dryRun) {
          got = n;
          break;
        }
        if (!took(await this.nodePorts.claim(n, owner), this.nodePorts, n, claimed)) continue;
        got = n;
        break;
      }
      if (got === undefined) throw errors.internal('failed to allocate a nodePort: range is full');
      p.nodePort = got;
      inThisService.set(got, true);
      offset++;
    }
  }
}
