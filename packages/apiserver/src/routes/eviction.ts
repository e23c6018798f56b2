// POST pods/<name>/eviction (pkg/registry/core/pod/storage/eviction.go): a delete that honours the pod's
// PodDisruptionBudget. Pods that are not running (Pending, Succeeded, Failed) or already terminating go at
// once; otherwise the one matching budget must allow a disruption: it is decremented and the pod recorded in
// status.disruptedPods before the pod gets the DisruptionTarget condition and is deleted. Running pods that
// are not ready go without touching the budget when its unhealthyPodEvictionPolicy says so.
import {
  errors,
  formatTime,
  R,
  StatusError,
  updateDisruptionAllowedCondition,
  labelSelectorAsSelector,
  selectorMatches,
  type DeleteOptions,
  type KubeObject,
  type PodDisruptionBudget,
  type Status,
} from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { deleteRequest, parseDeleteOptions } from '../registry/delete-plan.ts';
import { listFromStore } from '../registry/list.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { asUser, isDryRun, type ApiReply, type ApiRequest } from './request.ts';

/** policyv1.DisruptionBudgetCause: the cause type of a refused eviction. */
export const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
/** MaxDisruptedPodSize: evictions the disruption controller has not yet confirmed, at most. */
const MAX_DISRUPTED_PODS = 2000;
const MAX_RETRIES = 20;

function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  return new StatusError('TooManyRequests', VIOLATION, {
    ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }],
  });
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

function podPhase(pod: KubeObject): string {
  return String(obj(pod.status).phase ?? '');
}

export function isPodReady(pod: KubeObject): boolean {
  const conds = Array.isArray(obj(pod.status).conditions) ? (obj(pod.status).conditions as Obj[]) : [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** canIgnorePDB: terminal, pending or terminating pods are evicted without a budget. */
function canIgnorePDB(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || phase === '' || !!pod.metadata.deletionTimestamp;
}

/** The budgets of the pod's namespace whose selector matches it; a nil or empty selector matches nothing here. */
async function budgetsFor(ctx: ApiContext, pod: KubeObject): Promise<PodDisruptionBudget[]> {
  const list = await listFromStore(ctx.backend, R.poddisruptionbudgets, { namespace: pod.metadata.namespace ?? '' });
  return (list.items as PodDisruptionBudget[]).filter((pdb) => {
    const sel = pdb.spec?.selector;
    if (!sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)) return false;
    try {
      return selectorMatches(labelSelectorAsSelector(sel), pod.metadata.labels ?? {});
    } catch {
      return false;
    }
  });
}

/**
 * checkAndDecrement: refuses with 429 when the budget allows no disruption (or the controller has not yet
 * seen its generation); otherwise the budget, less one disruption and with the pod in disruptedPods, is stored.
 */
async function checkAndDecrement(ctx: ApiContext, pdb: PodDisruptionBudget, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const st = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw tooManyRequests(10, `The disruption budget ${name} is still being processed by the server.`);
  if (st.disruptionsAllowed < 0) throw errors.forbidden(`poddisruptionbudgets.policy "${name}" is forbidden: pdb disruptions allowed is negative`);
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw errors.forbidden(`poddisruptionbudgets.policy "${name}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`);
  if (st.disruptionsAllowed === 0) throw tooManyRequests(0, `The disruption budget ${name} needs ${st.desiredHealthy} healthy pods and has ${st.currentHealthy} currently`);
  const next = structuredClone(pdb);
  const nst = next.status!;
  nst.disruptionsAllowed--;
  const now = formatTime(ctx.clock.now());
  if (nst.disruptionsAllowed === 0) updateDisruptionAllowedCondition(next, now);
  if (dryRun) return;
  nst.disruptedPods = { ...(nst.disruptedPods ?? {}), [podName]: now };
  await ctx.registry.update(R.poddisruptionbudgets, pdb.metadata.namespace, name, next, { subresource: 'status' });
}

/** addConditionAndDeletePod: DisruptionTarget on the pod's status (not on dry runs), then the delete. */
async function addConditionAndDelete(ctx: ApiContext, req: ApiRequest, pod: KubeObject, opts: DeleteOptions, dryRun: boolean): Promise<void> {
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name ?? '';
  if (!dryRun) {
    const updated = await ctx.registry.guaranteedUpdate(
      R.pods,
      ns,
      name,
      (cur) => {
        const pre = opts.preconditions;
        if (pre?.uid && pre.uid !== cur.metadata.uid)
          throw errors.conflict('Pod', name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${cur.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
        if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion)
          throw errors.conflict(
            'Pod',
            name,
            `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${cur.metadata.resourceVersion ?? ''}). The object might have been modified`,
          );
        const status = obj(cur.status);
        const conds = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
        const i = conds.findIndex((c) => c.type === 'DisruptionTarget');
        const c: Obj = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(ctx.clock.now()), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
        if (i >= 0 && conds[i]!.status === 'True') c.lastTransitionTime = conds[i]!.lastTransitionTime;
        if (i >= 0) conds[i] = c;
        else conds.push(c);
        status.conditions = conds;
        cur.status = status;
        return cur;
      },
      { ...asUser(req), subresource: 'status' },
    );
    if (opts.preconditions?.resourceVersion) opts = { ...opts, preconditions: { ...opts.preconditions, resourceVersion: updated.metadata.resourceVersion ?? '' } };
  }
  await ctx.registry.delete(R.pods, ns, name, deleteRequest(R.pods, opts), { ...asUser(req), dryRun });
}

function success(code: number): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
}

export async function evict(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const t = req.target;
  const podName = t.name ?? '';
  const ev = asObjectBody(req.body, R.pods, t.namespace, { apiVersion: 'policy/v1', kind: 'Eviction' });
  if (ev.metadata.name && ev.metadata.name !== podName) throw errors.badRequest('name in URL does not match name in Eviction object');
  const opts = parseDeleteOptions(ev.deleteOptions ?? undefined, new URLSearchParams());
  const dryRun = isDryRun(req.query) || (opts.dryRun ?? []).includes('All');
  for (let attempt = 0; ; attempt++) {
    const pod = await ctx.registry.get(R.pods, t.namespace, podName);
    if (canIgnorePDB(pod)) {
      await addConditionAndDelete(ctx, req, pod, opts, dryRun);
      return { code: 201, body: success(201) };
    }
    const pdbs = await budgetsFor(ctx, pod);
    if (pdbs.length > 1) throw errors.internal('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    let deleteOpts = opts;
    if (pdbs.length === 1) {
      const pdb = pdbs[0]!;
      const st = pdb.status;
      // A running pod that is not ready does not count as healthy: it may go without spending the budget.
      const unhealthyGoes =
        !isPodReady(pod) && (pdb.spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' || (!!st && st.currentHealthy >= st.desiredHealthy && st.desiredHealthy > 0));
      if (unhealthyGoes) {
        // The pod must still be the unhealthy one we judged when it is deleted.
        if (!opts.preconditions?.resourceVersion) deleteOpts = { ...opts, preconditions: { ...opts.preconditions, resourceVersion: pod.metadata.resourceVersion ?? '' } };
      } else {
        try {
          await checkAndDecrement(ctx, pdb, podName, dryRun);
        } catch (e) {
          if (e instanceof StatusError && e.reason === 'Conflict' && attempt < MAX_RETRIES) continue;
          throw e;
        }
      }
    }
    await addConditionAndDelete(ctx, req, pod, deleteOpts, dryRun);
    return { code: 201, body: success(201) };
  }
}
