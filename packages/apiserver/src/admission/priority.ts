// Priority admission: resolves a pod's priorityClassName to spec.priority and spec.preemptionPolicy (the
// global default class, or 0, when none is named); an unknown class is 403 Forbidden. Also keeps a single
// globalDefault PriorityClass.
import { StatusError, qualifiedResource } from '@kemu/api';
import type { PriorityClass } from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
import { podCreate } from './types.ts';

export const SYSTEM_CLUSTER_CRITICAL = 'system-cluster-critical';
export const SYSTEM_NODE_CRITICAL = 'system-node-critical';
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The two classes every cluster has (the apiserver also creates them as objects). */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: SYSTEM_NODE_CRITICAL },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
    preemptionPolicy: 'PreemptLowerPriority',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: SYSTEM_CLUSTER_CRITICAL },
    value: SYSTEM_CRITICAL_PRIORITY,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    preemptionPolicy: 'PreemptLowerPriority',
  },
];

function forbidden(attrs: AdmissionAttributes, why: string): StatusError {
  const name = attrs.name || attrs.object?.metadata.name || '';
  const details = { name, kind: attrs.resource.plural, ...(attrs.resource.group ? { group: attrs.resource.group } : {}) };
  return new StatusError('Forbidden', `${qualifiedResource(attrs.resource)} "${name}" is forbidden: ${why}`, details);
}

async function lookup(name: string, ctx: AdmissionContext): Promise<PriorityClass | undefined> {
  const found = await ctx.getPriorityClass?.(name);
  return found ?? SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
}

async function globalDefault(ctx: AdmissionContext): Promise<PriorityClass | undefined> {
  const all = (await ctx.listPriorityClasses?.()) ?? [];
  // Several defaults can only appear through races; Kubernetes then takes the lowest value.
  return all.filter((c) => c.globalDefault === true).sort((a, b) => a.value - b.value)[0];
}

async function admitPod(attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<void> {
  const pod = podCreate(attrs);
  if (!pod) return;
  const spec = pod.spec;
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  let priority = 0;
  let policy: string = 'PreemptLowerPriority';
  if (className === '') {
    const def = await globalDefault(ctx);
    if (def) {
      spec.priorityClassName = def.metadata.name;
      priority = def.value;
      policy = def.preemptionPolicy ?? policy;
    }
  } else {
    const pc = await lookup(className, ctx);
    // Without a store lookup (admit() rather than admitWith()), only the built-in classes are known:
    // leave user classes unresolved rather than refusing pods that name one.
    if (!pc && !ctx.getPriorityClass) return;
    if (!pc) throw forbidden(attrs, `no PriorityClass with name ${className} was found`);
    priority = pc.value;
    policy = pc.preemptionPolicy ?? policy;
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority)
    throw forbidden(
      attrs,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  spec.priority = priority;
  if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== '' && spec.preemptionPolicy !== policy)
    throw forbidden(
      attrs,
      `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
    );
  spec.preemptionPolicy = policy;
}

async function admitPriorityClass(attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<void> {
  if (attrs.resource.kind !== 'PriorityClass' || attrs.subresource) return;
  if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
  const pc = attrs.object as PriorityClass | undefined;
  if (!pc || pc.globalDefault !== true) return;
  const other = ((await ctx.listPriorityClasses?.()) ?? []).find((c) => c.globalDefault === true && c.metadata.name !== pc.metadata.name);
  if (other) throw forbidden(attrs, `PriorityClass ${other.metadata.name ?? ''} is already marked as default. Only one default can exist`);
}

export const priorityPlugin: AdmissionPlugin = {
  name: 'Priority',
  async admit(attrs, ctx) {
    await admitPod(attrs, ctx);
    await admitPriorityClass(attrs, ctx);
  },
};
