// ResourceQuota (plugin/pkg/admission/resourcequota): a create is charged against every quota of its namespace
// that covers it. A quota whose status.hard names a resource the object uses refuses it when used + requested
// would pass hard ("exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"), when a container
// leaves out a cpu/memory request or limit the quota tracks ("must specify limits.cpu for: x"), or when the
// controller has not yet counted the usage ("status unknown for quota"). Admitted usage is added to
// status.used at once, so back-to-back creates cannot both slip under the limit.
import {
  R,
  StatusError,
  addResourceLists,
  errors,
  exceededResources,
  maskResourceList,
  matchingResources,
  objectUsage,
  podQuotaConstraints,
  prettyPrintResourceList,
  qualifiedResource,
  quotaMatches,
  type ResourceQuota,
} from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';

const MAX_RETRIES = 5;

function refuse(attrs: AdmissionAttributes, why: string): StatusError {
  const name = attrs.object?.metadata.name || attrs.object?.metadata.generateName || attrs.name || 'Unknown';
  return errors.forbidden(`${qualifiedResource(attrs.resource)} "${name}" is forbidden: ${why}`);
}

/** One pass: the quotas to update, or a refusal. */
async function evaluate(attrs: AdmissionAttributes, ctx: AdmissionContext, quotas: ResourceQuota[]): Promise<ResourceQuota[]> {
  const o = attrs.object!;
  const usage = objectUsage(attrs.resource, o, Date.now());
  const updates: ResourceQuota[] = [];
  for (const q of quotas) {
    if (!quotaMatches(q, attrs.resource, o)) continue;
    const hard = q.status?.hard ?? {};
    const restricted = matchingResources(attrs.resource, Object.keys(hard));
    if (restricted.length === 0) continue;
    if (attrs.resource.group === '' && attrs.resource.plural === 'pods') {
      const missing = podQuotaConstraints(o, restricted);
      if (missing) throw refuse(attrs, `failed quota: ${q.metadata.name ?? ''}: ${missing}`);
    }
    const used = q.status?.used ?? {};
    const unknown = restricted.filter((n) => used[n] === undefined).sort();
    if (unknown.length > 0) throw refuse(attrs, `status unknown for quota: ${q.metadata.name ?? ''}, resources: ${unknown.join(',')}`);
    const requested = maskResourceList(usage, restricted);
    if (Object.keys(requested).length === 0) continue;
    const newUsed = addResourceLists(used, requested);
    const exceeded = exceededResources(maskResourceList(newUsed, restricted), hard);
    if (exceeded.length > 0) {
      throw refuse(
        attrs,
        `exceeded quota: ${q.metadata.name ?? ''}, requested: ${prettyPrintResourceList(maskResourceList(requested, exceeded))}, used: ${prettyPrintResourceList(maskResourceList(used, exceeded))}, limited: ${prettyPrintResourceList(maskResourceList(hard, exceeded))}`,
      );
    }
    updates.push({ ...q, status: { ...q.status, used: newUsed } });
  }
  return updates;
}

export const resourceQuotaPlugin: AdmissionPlugin = {
  name: 'ResourceQuota',
  async validate(attrs, ctx) {
    // Creates of namespaced objects on their main resource are charged (Kubernetes also re-evaluates updates
    // whose usage grows; kemu's usage only changes on create).
    if (attrs.operation !== 'CREATE' || attrs.subresource || !attrs.namespace || !attrs.object || !ctx.listObjects) return;
    // Most namespaces have no quota: the cache says so cheaply; a namespace with quotas is read from the store.
    if ((await ctx.listObjects(R.resourcequotas, attrs.namespace)).length === 0) return;
    for (let attempt = 0; ; attempt++) {
      const quotas = (await ctx.listObjects(R.resourcequotas, attrs.namespace, true)) as ResourceQuota[];
      if (quotas.length === 0) return;
      const updates = await evaluate(attrs, ctx, quotas);
      if (attrs.dryRun || !ctx.updateQuotaStatus) return;
      try {
        for (const q of updates) await ctx.updateQuotaStatus(q);
        return;
      } catch (e) {
        // Another write moved the quota on: count again from its new usage.
        if (e instanceof StatusError && e.reason === 'Conflict' && attempt < MAX_RETRIES) continue;
        throw e;
      }
    }
  },
};
