// ResourceQuota (plugin/pkg/admission/resourcequota): a create (and an update of a service or a claim, by what it
// adds: a type turned NodePort/LoadBalancer, a larger storage request) is charged against every quota of its
// namespace that covers it. A quota whose status.hard names a resource the object uses refuses it when used + requested
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
  quotaChargesUpdates,
  quotaMatches,
  removeZeros,
  subtractNonNegative,
  type ResourceQuota,
} from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';

const MAX_RETRIES = 5;

function refuse(attrs: AdmissionAttributes, why: string): StatusError {
  const name = attrs.object?.metadata.name || attrs.object?.metadata.generateName || attrs.name || 'Unknown';
  return errors.forbidden(`${qualifiedResource(attrs.resource)} "${name}" is forbidden: ${why}`);
}

/** One pass (checkRequest): the quotas to update, or a refusal. */
async function evaluate(attrs: AdmissionAttributes, ctx: AdmissionContext, quotas: ResourceQuota[]): Promise<ResourceQuota[]> {
  const o = attrs.object!;
  const interesting: ResourceQuota[] = [];
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
    if (restricted.some((n) => used[n] === undefined)) throw refuse(attrs, `status unknown for quota: ${q.metadata.name ?? ''}, resources: ${[...restricted].sort().join(',')}`);
    interesting.push(q);
  }
  if (interesting.length === 0) return [];
  const now = Date.now();
  let delta = objectUsage(attrs.resource, o, now);
  // An update is charged what it adds over the stored object.
  const old = attrs.operation === 'UPDATE' ? attrs.oldObject : undefined;
  if (old?.metadata.resourceVersion) delta = subtractNonNegative(delta, objectUsage(attrs.resource, old, now));
  delta = removeZeros(delta);
  if (Object.keys(delta).length === 0) return [];
  const updates: ResourceQuota[] = [];
  for (const q of interesting) {
    const hard = q.status?.hard ?? {};
    const used = q.status?.used ?? {};
    const requested = maskResourceList(delta, Object.keys(hard));
    if (Object.keys(requested).length === 0) continue;
    const newUsed = addResourceLists(used, requested);
    const exceeded = exceededResources(maskResourceList(newUsed, Object.keys(requested)), hard);
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
    // Creates of namespaced objects on their main resource are charged, and updates of services and claims by
    // what they add.
    const charged = attrs.operation === 'CREATE' || (attrs.operation === 'UPDATE' && quotaChargesUpdates(attrs.resource));
    if (!charged || attrs.subresource || !attrs.namespace || !attrs.object || !ctx.listObjects) return;
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
