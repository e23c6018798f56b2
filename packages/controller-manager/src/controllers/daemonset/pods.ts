// Which nodes run a daemon pod and the pod each gets (pkg/controller/daemon/util and NodeShouldRunDaemonPod):
// the tolerations the controller adds, node selector and required node affinity, taints, and the node affinity
// `metadata.name In [node]` through which the default scheduler places the pod.
import type { DaemonSet, Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodTemplateSpec, Taint, Toleration } from '@kemu/api';
import { tolerates } from '../nodelifecycle.ts';

/** AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates (network-unavailable only with hostNetwork). */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const t: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) t.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return t;
}

/** The template's tolerations with the daemon ones added (an existing toleration of the same key and effect wins). */
export function withDaemonTolerations(template: PodTemplateSpec): Toleration[] {
  const own = template.spec.tolerations ?? [];
  const added = daemonTolerations(template.spec.hostNetwork === true).filter((d) => !own.some((t) => t.key === d.key && t.effect === d.effect));
  return [...own, ...added];
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1 || !/^-?\d+$/.test(values[0] ?? '')) return false;
      return r.operator === 'Gt' ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    exprs.every((r) => requirementMatches(r, labels[r.key])) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name))
  );
}

/** nodeSelector and required node affinity (the scheduler's NodeAffinity filter). */
export function fitsNodeAffinity(template: PodTemplateSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(template.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = template.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms === undefined) return true;
  return terms.some((t) => termMatches(t, node));
}

function untolerated(taints: readonly Taint[], tols: readonly Toleration[], effects: readonly string[]): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !tols.some((t) => tolerates(t, taint)));
}

/**
 * NodeShouldRunDaemonPod: shouldRun — a new daemon pod belongs here; shouldContinueRunning — an existing one may
 * stay (only an untolerated NoExecute taint evicts it).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const template = ds.spec.template;
  if (template.spec.nodeName && template.spec.nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!fitsNodeAffinity(template, node)) return { shouldRun: false, shouldContinueRunning: false };
  const tols = withDaemonTolerations(template);
  const taints = node.spec?.taints ?? [];
  if (untolerated(taints, tols, ['NoExecute'])) return { shouldRun: false, shouldContinueRunning: false };
  if (untolerated(taints, tols, ['NoSchedule'])) return { shouldRun: false, shouldContinueRunning: true };
  return { shouldRun: true, shouldContinueRunning: true };
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes the single term
 * `matchFields metadata.name In [node]`; preferred terms and other affinities are kept.
 */
export function pinToNode(template: PodTemplateSpec, nodeName: string): PodTemplateSpec {
  const t = structuredClone(template);
  const affinity = t.spec.affinity ?? {};
  affinity.nodeAffinity = {
    ...(affinity.nodeAffinity ?? {}),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
    },
  };
  t.spec.affinity = affinity;
  t.spec.tolerations = withDaemonTolerations(template);
  return t;
}

/** util.GetTargetNodeName: the pod's node, or the node its `metadata.name In [x]` affinity pins it to. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    const f = (term.matchFields ?? []).find((r) => r.key === 'metadata.name' && r.operator === 'In' && (r.values ?? []).length === 1);
    if (f) return f.values?.[0];
  }
  return undefined;
}
