// Pod events into the graph, as Kubernetes' graphPopulator: a pod enters when it is bound (spec.nodeName
// set) and leaves when deleted; a mirror pod links only to its node, so a node can never grant itself
// access to other objects by creating one (NodeRestriction refuses such pods too; this is the second
// lock). Kubernetes skips an update whose node and uid are unchanged, trusting the pod's references to be
// immutable; here the references are compared as well, so ephemeral containers added later (the only
// references that can change) are reached too.
import type { KubeObject } from '@kemu/api';
import { MIRROR_POD_ANNOTATION } from '../../admission/node-restriction.ts';
import type { BoundPod, NodeGraph } from './graph.ts';
import { podReferences, type PodReferences } from './pod-references.ts';

/** One change to the pods, as a feed reports it. */
export type PodEvent = { type: 'upsert'; pod: KubeObject } | { type: 'delete'; namespace: string; name: string };

const NO_REFS: PodReferences = { secrets: [], configmaps: [], pvcs: [], serviceAccount: '' };

/** The graph's view of a pod, or undefined while it is not bound to a node. */
export function boundPod(pod: KubeObject): BoundPod | undefined {
  const spec = pod.spec;
  const nodeName = typeof spec === 'object' && spec !== null ? (spec as { nodeName?: unknown }).nodeName : undefined;
  if (typeof nodeName !== 'string' || nodeName === '') return undefined;
  const mirror = pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
  return {
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    uid: pod.metadata.uid ?? '',
    nodeName,
    refs: mirror ? NO_REFS : podReferences(pod),
  };
}

export function applyPodEvent(graph: NodeGraph, ev: PodEvent): void {
  if (ev.type === 'delete') {
    graph.deletePod(ev.namespace, ev.name);
    return;
  }
  const p = boundPod(ev.pod);
  if (p) graph.addPod(p);
}
