// A pod with everything the plugins derive from it computed once: requests, host ports, and compiled
// affinity terms. Built when a pod enters the cache or the queue, never inside the per-node hot loop.
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from '@kemu/api';
import { compileLabelSelector, isEmptySelector, type LabelMatcher, type Labels } from '../util/selector.ts';
import { Resource, computePodRequests } from './resource.ts';

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** A compiled PodAffinityTerm (framework.AffinityTerm). */
export interface AffinityTerm {
  topologyKey: string;
  selector: LabelMatcher;
  /** Explicit namespaces; with no namespaceSelector and no namespaces, the pod's own namespace. */
  namespaces: ReadonlySet<string>;
  /** Compiled namespaceSelector, if any ({} = all namespaces). */
  namespaceSelector: LabelMatcher | undefined;
  allNamespaces: boolean;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

export type NamespaceLabels = (namespace: string) => Labels;

export function affinityTermMatches(t: AffinityTerm, pod: PodInfo, nsLabels: NamespaceLabels | undefined): boolean {
  if (!t.allNamespaces && !t.namespaces.has(pod.namespace)) {
    if (t.namespaceSelector === undefined || !t.namespaceSelector(nsLabels?.(pod.namespace))) return false;
  }
  return t.selector(pod.labels);
}

function compileTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  let sel = term.labelSelector;
  // matchLabelKeys / mismatchLabelKeys merge the incoming pod's label values into the selector.
  if ((term.matchLabelKeys?.length || term.mismatchLabelKeys?.length) && sel) {
    const labels = pod.metadata.labels ?? {};
    const exprs = [...(sel.matchExpressions ?? [])];
    for (const k of term.matchLabelKeys ?? []) if (k in labels) exprs.push({ key: k, operator: 'In', values: [labels[k] ?? ''] });
    for (const k of term.mismatchLabelKeys ?? []) if (k in labels) exprs.push({ key: k, operator: 'NotIn', values: [labels[k] ?? ''] });
    sel = { ...sel, matchExpressions: exprs };
  }
  const namespaces = new Set(term.namespaces ?? []);
  const nsSel = term.namespaceSelector;
  const allNamespaces = nsSel !== undefined && nsSel !== null && isEmptySelector(nsSel);
  if (namespaces.size === 0 && (nsSel === undefined || nsSel === null)) namespaces.add(pod.metadata.namespace ?? 'default');
  return {
    topologyKey: term.topologyKey,
    selector: compileLabelSelector(sel),
    namespaces,
    namespaceSelector: nsSel && !allNamespaces ? compileLabelSelector(nsSel) : undefined,
    allNamespaces,
  };
}

function compileWeighted(pod: Pod, terms: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return (terms ?? []).map((w) => ({ ...compileTerm(pod, w.podAffinityTerm), weight: w.weight }));
}

export class PodInfo {
  readonly key: string;
  readonly namespace: string;
  readonly labels: Labels;
  readonly priority: number;
  /** Actual requests (Filter). */
  readonly requests: Resource;
  /** Requests with 100m/200Mi defaults for containers without requests (Score). */
  readonly nonZeroRequests: Resource;
  readonly hostPorts: HostPort[];
  readonly requiredAffinity: AffinityTerm[];
  readonly requiredAntiAffinity: AffinityTerm[];
  readonly preferredAffinity: WeightedAffinityTerm[];
  readonly preferredAntiAffinity: WeightedAffinityTerm[];
  readonly hasAffinity: boolean;
  /** Terms that matter when scoring other pods (required/preferred affinity, preferred anti-affinity). */
  readonly hasScoringTerms: boolean;

  constructor(readonly pod: Pod) {
    this.namespace = pod.metadata.namespace ?? 'default';
    this.key = `${this.namespace}/${pod.metadata.name ?? ''}`;
    this.labels = pod.metadata.labels;
    this.priority = pod.spec.priority ?? 0;
    this.requests = computePodRequests(pod, false);
    this.nonZeroRequests = computePodRequests(pod, true);
    const ports: HostPort[] = [];
    for (const c of [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])])
      for (const p of c.ports ?? [])
        if (p.hostPort !== undefined && p.hostPort > 0)
          ports.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort });
    this.hostPorts = ports;
    const a = pod.spec.affinity;
    this.requiredAffinity = (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(pod, t));
    this.requiredAntiAffinity = (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) =>
      compileTerm(pod, t),
    );
    this.preferredAffinity = compileWeighted(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.preferredAntiAffinity = compileWeighted(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.hasAffinity =
      this.requiredAffinity.length + this.requiredAntiAffinity.length + this.preferredAffinity.length + this.preferredAntiAffinity.length >
      0;
    this.hasScoringTerms = this.requiredAffinity.length + this.preferredAffinity.length + this.preferredAntiAffinity.length > 0;
  }

  get name(): string {
    return this.pod.metadata.name ?? '';
  }
  get uid(): string {
    return this.pod.metadata.uid ?? '';
  }
}
