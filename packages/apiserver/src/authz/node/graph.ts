// The Node authorizer's graph, as Kubernetes' node.Graph: which node each bound pod runs on, and which
// Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccounts those pods reference. All edges point
// toward a node (secret → pod → node), so the one question asked — is there a path from this object to
// that node? — is answered from a per-vertex count of the nodes it reaches (Kubernetes keeps that
// "destination edge index" only for vertices with 200+ edges and walks the graph for the rest; here every
// vertex has it, which makes every decision two map lookups whatever the cluster size).
// Vertex types kemu has no objects for yet (pv, volumeattachment, resourceclaim, resourceslice) never get
// a vertex, so a node asking for one is told there is no relationship, as Kubernetes answers for an
// unknown object.
import type { PodReferences } from './pod-references.ts';

/** Kubernetes' vertex type names (they appear in the reasons logged for refusals). */
export type VertexType = 'configmap' | 'node' | 'pod' | 'pv' | 'pvc' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceAccount' | 'volumeattachment';

/** A pod bound to a node, with what it references (for a mirror pod: nothing, see graph-populator.ts). */
export interface BoundPod {
  namespace: string;
  name: string;
  uid: string;
  nodeName: string;
  refs: PodReferences;
}

/** Either a path exists, or why not (Kubernetes' hasPathFrom error text, for logs). */
export type PathResult = { ok: true } | { ok: false; why: string };

/** What the authorizer asks of a graph (a live one syncs itself before answering). */
export interface NodeGraphView {
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): PathResult;
}

interface PodEntry {
  nodeName: string;
  uid: string;
  /** Vertex keys of what the pod references (each counted once in `reach`). */
  refs: string[];
}

const vertexKey = (type: VertexType, namespace: string, name: string): string => `${type}:${namespace}/${name}`;
const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

function refKeys(p: BoundPod): string[] {
  const keys: string[] = [];
  const ns = p.namespace;
  if (p.refs.serviceAccount !== '') keys.push(vertexKey('serviceAccount', ns, p.refs.serviceAccount));
  for (const n of p.refs.secrets) keys.push(vertexKey('secret', ns, n));
  for (const n of p.refs.configmaps) keys.push(vertexKey('configmap', ns, n));
  for (const n of p.refs.pvcs) keys.push(vertexKey('pvc', ns, n));
  return keys;
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export class NodeGraph implements NodeGraphView {
  private readonly pods = new Map<string, PodEntry>();
  /** Vertex key → node name → how many of that node's pods reference it. */
  private readonly reach = new Map<string, Map<string, number>>();
  /** Node name → bound pods (a node vertex exists while it has one). */
  private readonly podsPerNode = new Map<string, number>();

  /** Adds or replaces a bound pod (a no-op when node, uid and references are unchanged). */
  addPod(p: BoundPod): void {
    const key = podKey(p.namespace, p.name);
    const refs = refKeys(p);
    const old = this.pods.get(key);
    if (old && old.nodeName === p.nodeName && old.uid === p.uid && sameList(old.refs, refs)) return;
    if (old) this.unlink(old);
    const entry: PodEntry = { nodeName: p.nodeName, uid: p.uid, refs };
    this.pods.set(key, entry);
    this.podsPerNode.set(p.nodeName, (this.podsPerNode.get(p.nodeName) ?? 0) + 1);
    for (const r of refs) {
      let nodes = this.reach.get(r);
      if (!nodes) this.reach.set(r, (nodes = new Map()));
      nodes.set(p.nodeName, (nodes.get(p.nodeName) ?? 0) + 1);
    }
  }

  deletePod(namespace: string, name: string): void {
    const key = podKey(namespace, name);
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    this.unlink(old);
  }

  private unlink(e: PodEntry): void {
    const left = (this.podsPerNode.get(e.nodeName) ?? 1) - 1;
    if (left > 0) this.podsPerNode.set(e.nodeName, left);
    else this.podsPerNode.delete(e.nodeName);
    for (const r of e.refs) {
      const nodes = this.reach.get(r);
      if (!nodes) continue;
      const n = (nodes.get(e.nodeName) ?? 1) - 1;
      if (n > 0) nodes.set(e.nodeName, n);
      else nodes.delete(e.nodeName);
      if (nodes.size === 0) this.reach.delete(r);
    }
  }

  /** The node a pod in the graph is bound to. */
  nodeOf(namespace: string, name: string): string | undefined {
    return this.pods.get(podKey(namespace, name))?.nodeName;
  }

  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): PathResult {
    const what = `${type} ${namespace}/${name}`;
    if (!this.podsPerNode.has(nodeName)) return { ok: false, why: `unknown node '${nodeName}' cannot get ${what}` };
    let reaches: boolean;
    if (type === 'pod') {
      const pod = this.pods.get(podKey(namespace, name));
      if (!pod) return { ok: false, why: `node '${nodeName}' cannot get unknown ${what}` };
      reaches = pod.nodeName === nodeName;
    } else {
      const nodes = this.reach.get(vertexKey(type, namespace, name));
      if (!nodes) return { ok: false, why: `node '${nodeName}' cannot get unknown ${what}` };
      reaches = nodes.has(nodeName);
    }
    return reaches ? { ok: true } : { ok: false, why: `node '${nodeName}' cannot get ${what}, no relationship to this object was found in the node authorizer graph` };
  }

  /** Sizes, for benchmarks and debugging. */
  stats(): { pods: number; nodes: number; objects: number } {
    return { pods: this.pods.size, nodes: this.podsPerNode.size, objects: this.reach.size };
  }

  clear(): void {
    this.pods.clear();
    this.reach.clear();
    this.podsPerNode.clear();
  }
}
