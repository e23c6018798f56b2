// Subresources: scale (autoscaling/v1 Scale), pods/binding and bindings and namespaces/finalize
// (pods/log is pod-log.ts, pods/eviction eviction.ts).
import { errors, formatTime, qualifiedResource, R, StatusError, type KubeObject, type LabelSelector, type Status } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { deleteRequest, parseDeleteOptions } from '../registry/delete-plan.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { customResourceToScale, customScalePaths, setCustomReplicas } from '../crd/scale.ts';
import { updateTracker } from './apply.ts';
import { scaleObject } from './scale-object.ts';
import { checkPatchType } from './write.ts';
import { boolParam, isDryRun, type ApiReply, type ApiRequest, asUser } from './request.ts';

function selectorString(sel: LabelSelector | undefined): string {
  if (!sel) return '';
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    if (e.operator === 'In') parts.push(`${e.key} in (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${(e.values ?? []).join(',')})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

function toScale(obj: KubeObject, mapSelector: boolean): KubeObject {
  const spec = (obj.spec ?? {}) as { replicas?: number; selector?: LabelSelector | Record<string, string> };
  // A ReplicationController's selector is a plain label map; the others are LabelSelectors.
  const selector = mapSelector ? { matchLabels: spec.selector as Record<string, string> } : (spec.selector as LabelSelector | undefined);
  const status = (obj.status ?? {}) as { replicas?: number };
  return scaleObject(obj, spec.replicas ?? 1, status.replicas ?? 0, selectorString(selector));
}

const SCALE_KIND = { apiVersion: 'autoscaling/v1', kind: 'Scale' };

export async function scale(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const name = t.name ?? '';
  const mapSel = t.resource.plural === R.replicationcontrollers.plural && t.resource.group === '';
  // Custom resources keep their replicas and selector where their CRD's scale paths say.
  const custom = customScalePaths(t.resource);
  const asScale = (o: KubeObject): KubeObject => (custom ? customResourceToScale(o, custom) : toScale(o, mapSel));
  if (req.method === 'GET') return { code: 200, body: asScale(await ctx.registry.get(t.resource, t.namespace, name)) };
  const dryRun = isDryRun(req.query);
  const out = await ctx.registry.guaranteedUpdate(
    t.resource,
    t.namespace,
    name,
    (cur) => {
      let wanted: KubeObject;
      if (req.method === 'PUT') {
        wanted = asObjectBody(req.body, t.resource, t.namespace, SCALE_KIND);
      } else {
        const mt = checkPatchType(req.contentType);
        // Patches apply to the Scale object; only spec.replicas is carried back.
        wanted = ctx.ext.applyPatch(mt === 'application/strategic-merge-patch+json' ? 'application/merge-patch+json' : mt, asScale(cur), req.body, t.resource);
      }
      const rv = wanted.metadata?.resourceVersion;
      if (rv && rv !== cur.metadata.resourceVersion) throw errors.conflict(qualifiedResource(t.resource), name);
      const replicas = (wanted.spec as { replicas?: unknown } | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw errors.invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` }]);
      }
      if (custom) setCustomReplicas(cur, custom, replicas);
      else cur.spec = { ...((cur.spec as object | undefined) ?? {}), replicas };
      return cur;
    },
    { ...asUser(req), dryRun, subresource: 'scale', managedFields: updateTracker(ctx, req, 'scale') },
  );
  return { code: 200, body: asScale(out) };
}

function success(code: number): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
}

/** POST pods/<name>/binding or POST bindings: sets spec.nodeName once (409 when already bound). */
export async function bind(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const binding = asObjectBody(req.body, R.bindings, t.namespace, { apiVersion: 'v1', kind: 'Binding' });
  const podName = t.name ?? binding.metadata.name ?? '';
  if (t.name && binding.metadata.name && binding.metadata.name !== t.name) {
    throw errors.badRequest(`the name of the object (${binding.metadata.name}) does not match the name on the URL (${t.name})`);
  }
  const target = (binding.target ?? {}) as { kind?: unknown; name?: unknown };
  if (typeof target.name !== 'string' || target.name === '') {
    throw errors.invalid('', 'Binding', podName, [{ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' }]);
  }
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
    throw errors.invalid('', 'Binding', podName, [{ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${String(target.kind)}": supported values: "Node"` }]);
  }
  const nodeName = target.name;
  await ctx.registry.guaranteedUpdate(
    R.pods,
    t.namespace,
    podName,
    (pod) => {
      if (pod.metadata.deletionTimestamp) throw errors.conflict('pods/binding', podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
      const spec = (pod.spec ?? {}) as { nodeName?: string };
      if (spec.nodeName) throw errors.conflict('pods/binding', podName, `pod ${podName} is already assigned to node "${spec.nodeName}"`);
      spec.nodeName = nodeName;
      pod.spec = spec;
      const status = (pod.status ?? {}) as { conditions?: { type: string; status: string; lastTransitionTime?: string; lastProbeTime?: null }[] };
      const conds = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
      conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(ctx.clock.now()) });
      status.conditions = conds;
      pod.status = status;
      return pod;
    },
    { ...asUser(req), dryRun: isDryRun(req.query), subresource: 'binding' },
  );
  return { code: 201, body: success(201) };
}

/** PUT namespaces/<name>/finalize: replaces spec.finalizers; an emptied terminating namespace is removed. */
export async function finalizeNamespace(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const name = t.name ?? '';
  const body = asObjectBody(req.body, R.namespaces, undefined);
  // /finalize is an update: the body must name the URL's namespace (checkName).
  if (body.metadata.name !== name) throw errors.badRequest(`the name of the object (${body.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  const finalizers = ((body.spec ?? {}) as { finalizers?: unknown }).finalizers;
  if (finalizers !== undefined && (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string'))) {
    throw errors.badRequest('spec.finalizers must be a list of strings');
  }
  const dryRun = isDryRun(req.query);
  const out = await ctx.registry.guaranteedUpdate(
    R.namespaces,
    undefined,
    name,
    (cur) => {
      cur.spec = { ...((cur.spec as object | undefined) ?? {}), finalizers: (finalizers as string[] | undefined) ?? [] };
      return cur;
    },
    { ...asUser(req), dryRun, subresource: 'finalize' },
  );
  const specFin = ((out.spec ?? {}) as { finalizers?: string[] }).finalizers ?? [];
  if (out.metadata.deletionTimestamp && specFin.length === 0 && (out.metadata.finalizers ?? []).length === 0 && !dryRun) {
    try {
      const res = await ctx.registry.delete(R.namespaces, undefined, name, deleteRequest(R.namespaces, {}), {});
      return { code: 200, body: res.object };
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
    }
  }
  return { code: 200, body: out };
}
