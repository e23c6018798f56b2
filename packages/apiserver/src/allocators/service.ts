// ClusterIP and NodePort allocation for Services (kube-apiserver's ipallocator/portallocator): dynamic
// values from --service-cluster-ip-range (one range per IP family, dual-stack with two) and
// --service-node-port-range, requested values checked for range and availability (422 with Kubernetes'
// messages), released when a Service is deleted or stops using them. spec.ipFamilies/ipFamilyPolicy are
// settled first (ip-families.ts). The first address of a range is only handed out on request (the
// primary's belongs to default/kubernetes).
import { errors, R } from '@kemu/api';
import type { KubeObject, StatusCause } from '@kemu/api';
import type { Backend } from '@kemu/store';
import { ClaimSet } from './claims.ts';
import type { ClaimRecord, ClaimResult, Owner } from './claims.ts';
import { objectKey } from '../storage.ts';
import { contains, ipAt, parsePortRange, serviceIPRange } from './cidr.ts';
import type { PortRange, ServiceIPRange } from './cidr.ts';
import { initIPFamilyFields, needsClusterIP, type ClusterIPFamilies } from './ip-families.ts';
import { formatIP, parseIP, parseServiceClusterIPRanges, type IPFamily } from '@kemu/base';
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

function needsNodePorts(spec: Obj): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

/** apiservice.NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort. */
function needsHealthCheck(spec: Obj): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

function healthCheckPort(spec: Obj): number | undefined {
  return typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort > 0 ? spec.healthCheckNodePort : undefined;
}

function ports(spec: Obj): Obj[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isObj) : [];
}

/** The claim key of an address: its canonical text, so "fd00::05" and "fd00::5" are one address. */
const canonicalIP = (ip: string): string => {
  const parsed = parseIP(ip);
  return parsed ? formatIP(parsed) : ip;
};

const ipList = (spec: Obj): string[] => (Array.isArray(spec.clusterIPs) ? spec.clusterIPs.filter((v): v is string => typeof v === 'string' && v !== '' && v !== 'None') : []);

export class ServiceAllocator {
  /** One range per configured family, the primary first. */
  readonly ipRanges: ReadonlyMap<IPFamily, ServiceIPRange>;
  readonly families: ClusterIPFamilies;
  readonly portRange: PortRange;
  private readonly ips: ClaimSet;
  private readonly nodePorts: ClaimSet;

  constructor(
    private readonly backend: Backend,
    opts: ServiceAllocatorOptions,
  ) {
    const parsed = parseServiceClusterIPRanges(opts.serviceClusterIPRange);
    if ('errors' in parsed) throw new Error(parsed.errors.join(', '));
    const ranges = new Map<IPFamily, ServiceIPRange>();
    for (const c of [parsed.primary, parsed.secondary]) if (c) ranges.set(c.family, serviceIPRange(c));
    this.ipRanges = ranges;
    this.families = { primary: parsed.primary.family, configured: [...ranges.keys()] };
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
      this.initFamilies(svc, undefined);
      if (needsClusterIP(spec)) await this.allocateIPs(svc, spec, [], claimed, !!opts.dryRun);
      if (needsNodePorts(spec)) await this.allocatePorts(svc, spec, new Set(), claimed, !!opts.dryRun);
      if (needsHealthCheck(spec)) await this.allocateHealthCheckPort(svc, spec, claimed, !!opts.dryRun);
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
    const oldIPs = needsClusterIP(oldSpec) ? ipList(oldSpec) : [];
    const oldHealthCheck = needsHealthCheck(oldSpec) ? healthCheckPort(oldSpec) : undefined;
    try {
      this.initFamilies(svc, old);
      // Existing addresses stay (clusterIPs[0] is immutable); an upgrade to dual-stack adds the secondary.
      if (needsClusterIP(spec)) await this.allocateIPs(svc, spec, needsClusterIP(oldSpec) ? ipList(spec).filter((ip) => oldIPs.includes(ip)) : [], claimed, !!opts.dryRun);
      if (needsNodePorts(spec)) await this.allocatePorts(svc, spec, oldPorts, claimed, !!opts.dryRun);
      else for (const p of ports(spec)) delete p.nodePort;
      // updateHealthCheckNodePort: claimed when newly needed; the old one is released on commit when no longer needed.
      if (needsHealthCheck(spec) && oldHealthCheck === undefined) await this.allocateHealthCheckPort(svc, spec, claimed, !!opts.dryRun);
    } catch (e) {
      await rollback();
      throw e;
    }
    return {
      rollback,
      commit: async () => {
        if (opts.dryRun) return;
        const newPorts = new Set(needsNodePorts(spec) ? ports(spec).map((p) => p.nodePort) : []);
        if (needsHealthCheck(spec)) newPorts.add(healthCheckPort(spec));
        for (const p of oldPorts) if (!newPorts.has(p)) await this.nodePorts.releaseOwned(p, owner);
        if (oldHealthCheck !== undefined && !newPorts.has(oldHealthCheck)) await this.nodePorts.releaseOwned(oldHealthCheck, owner);
        const kept = needsClusterIP(spec) ? ipList(spec) : [];
        for (const ip of oldIPs) if (!kept.includes(ip)) await this.ips.releaseOwned(canonicalIP(ip), owner);
      },
    };
  }

  /** Frees everything a deleted Service held. */
  async release(svc: KubeObject): Promise<void> {
    const spec = specOf(svc);
    const owner = ownerOf(svc);
    for (const ip of ipList(spec)) await this.ips.releaseOwned(canonicalIP(ip), owner);
    for (const p of ports(spec)) if (typeof p.nodePort === 'number' && p.nodePort > 0) await this.nodePorts.releaseOwned(p.nodePort, owner);
    const hc = healthCheckPort(spec);
    if (hc !== undefined) await this.nodePorts.releaseOwned(hc, owner);
  }

  /** allocHealthCheckNodePort: the requested port, or the first free one; failures are InternalErrors, as Kubernetes wraps them. */
  private async allocateHealthCheckPort(svc: KubeObject, spec: Obj, claimed: Claimed[], dryRun: boolean): Promise<void> {
    const owner = ownerOf(svc);
    const { base, size, text } = this.portRange;
    const wanted = healthCheckPort(spec);
    const inThisService = new Set(ports(spec).map((p) => p.nodePort));
    if (wanted !== undefined) {
      if (wanted < base || wanted >= base + size) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${wanted}: provided port is not in the valid range. The range of valid ports is ${text}`);
      const ok = !inThisService.has(wanted) && (dryRun ? await this.nodePorts.isFree(wanted, owner) : took(await this.nodePorts.claim(wanted, owner), this.nodePorts, wanted, claimed));
      if (!ok) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${wanted}: provided port is already allocated`);
      return;
    }
    const taken = await this.nodePorts.taken();
    for (let offset = 0; offset < size; offset++) {
      const n = base + offset;
      if (taken.has(String(n)) || inThisService.has(n)) continue;
      if (!dryRun && !took(await this.nodePorts.claim(n, owner), this.nodePorts, n, claimed)) continue;
      spec.healthCheckNodePort = n;
      return;
    }
    throw errors.internal('failed to allocate a HealthCheck NodePort 0: range is full');
  }

  private initFamilies(svc: KubeObject, old: KubeObject | undefined): void {
    const causes = initIPFamilyFields(svc, old, this.families);
    if (causes.length > 0) throw errors.invalid('', 'Service', svc.metadata.name ?? '', causes);
  }

  /** One ClusterIP per spec.ipFamilies entry: clusterIPs[i] when requested, else a free one of that family. */
  private async allocateIPs(svc: KubeObject, spec: Obj, alreadyOurs: string[], claimed: Claimed[], dryRun: boolean): Promise<void> {
    const owner = ownerOf(svc);
    const families = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as IPFamily[]) : [this.families.primary];
    const requested = Array.isArray(spec.clusterIPs) ? spec.clusterIPs.map((v) => (typeof v === 'string' ? v : '')) : [];
    const out: string[] = [];
    for (const [i, family] of families.entries()) {
      const want = requested[i] ?? '';
      // Kept on update (even if the cluster has since lost that family's range, as Kubernetes keeps it).
      if (want !== '' && alreadyOurs.includes(want)) {
        out.push(want);
        continue;
      }
      const range = this.ipRanges.get(family);
      if (!range) throw this.invalid(svc, fieldErrors.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
      if (want === '') {
        out.push(await this.pickIP(range, owner, claimed, dryRun));
        continue;
      }
      const fail = (why: string): Error =>
        this.invalid(svc, fieldErrors.invalid('spec.clusterIPs', requested, `failed to allocate IP ${want}: ${why}`));
      const ip = parseIP(want);
      if (!ip || !contains(range, ip)) throw fail(`the provided IP (${want}) is not in the valid range. The range of valid IPs is ${range.cidr.text}`);
      const key = formatIP(ip);
      const free = dryRun ? await this.ips.isFree(key, owner) : took(await this.ips.claim(key, owner), this.ips, key, claimed);
      if (!free) throw fail('provided IP is already allocated');
      out.push(want);
    }
    spec.clusterIPs = out;
    if (out[0] !== undefined) spec.clusterIP = out[0];
  }

  private async pickIP(range: ServiceIPRange, owner: Owner, claimed: Claimed[], dryRun: boolean): Promise<string> {
    const usable = range.max;
    const taken = await this.ips.taken();
    // Like Kubernetes, dynamic allocation starts above a small band kept for requested addresses.
    const band = Math.min(Math.max(16, Math.floor((usable + 2) / 16)), 256);
    const start = usable > band * 2 ? band - 1 : 0;
    for (let i = 0; i < usable; i++) {
      const offset = (start + i) % usable;
      if (offset === 0) continue; // the range's first address: the kubernetes Service's (on the primary)
      const ip = ipAt(range, offset);
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
