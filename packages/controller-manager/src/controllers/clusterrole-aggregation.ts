// clusterrole-aggregation-controller: a ClusterRole with aggregationRule.clusterRoleSelectors gets as its
// rules the rules of every other ClusterRole matching one of the selectors — selectors in order, roles by
// name within each, exact duplicates dropped — written only when they differ. Any ClusterRole change may
// alter any aggregate, so every aggregated role is queued on every change (the set is small), as Kubernetes.
import { R, matchesLabelSelector, type ClusterRole, type PolicyRule } from '@kemu/api';
import type { SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

// Kubernetes runs five workers for this controller.
const WORKERS = 5;

/** Equality as apimachinery's Semantic.DeepEqual: an absent list equals an empty one. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const fields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;
  return fields.every((f) => JSON.stringify(a[f] ?? []) === JSON.stringify(b[f] ?? []));
}

const sameRules = (a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean => a.length === b.length && a.every((r, i) => sameRule(r, b[i] as PolicyRule));

/** The rules an aggregated role should have, given every ClusterRole there is. */
export function aggregateRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !matchesLabelSelector(selector, other.metadata.labels)) continue;
      for (const rule of other.rules ?? []) if (!out.some((r) => sameRule(r, rule))) out.push(rule);
    }
  }
  return out;
}

export class ClusterRoleAggregationController implements Controller {
  readonly name = 'clusterrole-aggregation-controller';
  private readonly roles: SharedInformer<ClusterRole>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.roles = ctx.informers.informerFor<ClusterRole>(R.clusterroles);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: WORKERS, sync: (k) => this.sync(k) }).waitFor(this.roles);
    const enqueueAll = () => {
      for (const r of this.roles.store.list()) if (r.aggregationRule) this.worker.add(r.metadata.name ?? '');
    };
    this.roles.addEventHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(name: string): Promise<void> {
    const role = this.roles.store.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregateRules(role, this.roles.store.list());
    if (sameRules(rules, role.rules ?? [])) return;
    // A write from a stale cache is refused with a Conflict and retried after the informer catches up.
    await this.ctx.client.update<ClusterRole>(R.clusterroles, undefined, { ...structuredClone(role), rules });
  }
}

export const clusterRoleAggregationDescriptor: ControllerDescriptor = {
  name: 'clusterrole-aggregation-controller',
  serviceAccountName: 'clusterrole-aggregation-controller',
  aliases: ['clusterrole-aggregation'],
  enabledByDefault: true,
  create: (ctx) => new ClusterRoleAggregationController(ctx),
};
