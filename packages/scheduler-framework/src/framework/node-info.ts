// A node with the pods the scheduler believes are on it (bound and assumed), and the aggregates the filters
// need: requested resources (actual and non-zero), used host ports and image sizes.
import type { Node } from '@kemu/api';
import type { Labels } from '../util/selector.ts';
import type { HostPort, PodInfo } from './pod-info.ts';
import { Resource } from './resource.ts';

export function normalizedImageName(name: string): string {
  // Untagged, undigested images mean :latest, as the kubelet resolves them.
  const slash = name.lastIndexOf('/');
  if (name.indexOf('@') < 0 && name.indexOf(':', slash + 1) < 0) return `${name}:latest`;
  return name;
}

export class NodeInfo {
  node: Node | undefined;
  name: string;
  labels: Labels = undefined;
  readonly pods: PodInfo[] = [];
  readonly podsWithAffinity: PodInfo[] = [];
  readonly podsWithRequiredAntiAffinity: PodInfo[] = [];
  readonly podsWithScoringTerms: PodInfo[] = [];
  requested = new Resource();
  nonZeroRequested = new Resource();
  allocatable = new Resource();
  /** ip → set of "protocol/port". */
  readonly usedPorts = new Map<string, Set<string>>();
  /** Normalized image name → size in bytes (node.status.images). */
  imageSizes = new Map<string, number>();
  /** Bumped on every change; lets per-cycle caches notice staleness. */
  generation = 0;

  constructor(node?: Node, name?: string) {
    this.name = name ?? node?.metadata.name ?? '';
    if (node) this.setNode(node);
  }

  setNode(node: Node): void {
    this.node = node;
    this.name = node.metadata.name ?? this.name;
    this.labels = node.metadata.labels;
    this.allocatable = Resource.fromList(node.status?.allocatable ?? node.status?.capacity);
    const images = new Map<string, number>();
    for (const img of node.status?.images ?? [])
      for (const n of img.names ?? []) images.set(normalizedImageName(n), img.sizeBytes ?? 0);
    this.imageSizes = images;
    this.generation++;
  }

  addPod(p: PodInfo): void {
    this.pods.push(p);
    if (p.hasAffinity) this.podsWithAffinity.push(p);
    if (p.requiredAntiAffinity.length) this.podsWithRequiredAntiAffinity.push(p);
    if (p.hasScoringTerms) this.podsWithScoringTerms.push(p);
    this.requested.add(p.requests);
    this.nonZeroRequested.add(p.nonZeroRequests);
    for (const hp of p.hostPorts) {
      let set = this.usedPorts.get(hp.ip);
      if (!set) this.usedPorts.set(hp.ip, (set = new Set()));
      set.add(`${hp.protocol}/${hp.port}`);
    }
    this.generation++;
  }

  /** Removes the pod with this key; returns whether it was there. */
  removePod(key: string): boolean {
    const i = this.pods.findIndex((p) => p.key === key);
    if (i < 0) return false;
    const p = this.pods[i] as PodInfo;
    this.pods.splice(i, 1);
    removeFrom(this.podsWithAffinity, key);
    removeFrom(this.podsWithRequiredAntiAffinity, key);
    removeFrom(this.podsWithScoringTerms, key);
    this.requested.add(p.requests, -1);
    this.nonZeroRequested.add(p.nonZeroRequests, -1);
    for (const hp of p.hostPorts) {
      // Another pod may still hold the same port (a conflict the apiserver allowed); recount.
      const stillUsed = this.pods.some((o) => o.hostPorts.some((x) => x.ip === hp.ip && x.protocol === hp.protocol && x.port === hp.port));
      if (!stillUsed) this.usedPorts.get(hp.ip)?.delete(`${hp.protocol}/${hp.port}`);
    }
    this.generation++;
    return true;
  }

  portConflict(hp: HostPort): boolean {
    const k = `${hp.protocol}/${hp.port}`;
    if (hp.ip === '0.0.0.0') {
      for (const set of this.usedPorts.values()) if (set.has(k)) return true;
      return false;
    }
    return !!(this.usedPorts.get(hp.ip)?.has(k) || this.usedPorts.get('0.0.0.0')?.has(k));
  }

  /** A copy whose pod list can be changed (preemption dry runs, nominated pods). */
  clone(): NodeInfo {
    const c = new NodeInfo(undefined, this.name);
    c.node = this.node;
    c.labels = this.labels;
    c.allocatable = this.allocatable;
    c.imageSizes = this.imageSizes;
    for (const p of this.pods) c.addPod(p);
    c.generation = this.generation;
    return c;
  }
}

function removeFrom(list: PodInfo[], key: string): void {
  const i = list.findIndex((p) => p.key === key);
  if (i >= 0) list.splice(i, 1);
}
