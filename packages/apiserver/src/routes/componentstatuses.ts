// componentstatuses (read-only, deprecated): scheduler and controller-manager are Healthy when their
// leader Lease in kube-system was renewed within its duration; etcd-0..N one per --etcd-servers member
// (a quorum read on that member), or etcd-0 for the whole store when it is SQLite or memory.
import { errors, parseTime, R, type KubeObject } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { buildFilter } from '../registry/filter.ts';
import { checkListOptions } from '../registry/list-options.ts';
import { warningHeader } from '../registry/warnings.ts';
import { tableOr } from './read.ts';
import type { ApiReply, ApiRequest } from './request.ts';

export const CS_WARNING = warningHeader(['v1 ComponentStatus is deprecated in v1.19+']) ?? '';

function cs(name: string, healthy: boolean, message: string, error?: string): KubeObject {
  const cond: Record<string, string> = { type: 'Healthy', status: healthy ? 'True' : 'False', message };
  if (error) cond.error = error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [cond] };
}

async function leaseHealthy(ctx: ApiContext, leaseName: string): Promise<boolean> {
  try {
    const lease = await ctx.registry.get(R.leases, 'kube-system', leaseName);
    const spec = (lease.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
    const renewed = parseTime(spec.renewTime);
    const duration = (spec.leaseDurationSeconds ?? 15) * 1000;
    return Number.isFinite(renewed) && ctx.clock.now() - renewed <= duration;
  } catch {
    return false;
  }
}

async function all(ctx: ApiContext): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const [name, lease] of Object.entries(ctx.componentLeases)) {
    const ok = await leaseHealthy(ctx, lease);
    out.push(ok ? cs(name, true, 'ok') : cs(name, false, '', `leader lease kube-system/${lease} is not being renewed`));
  }
  out.push(...(await storeStatuses(ctx)));
  return out;
}

async function storeStatuses(ctx: ApiContext): Promise<KubeObject[]> {
  if (ctx.backend.memberHealth) {
    try {
      const members = await ctx.backend.memberHealth();
      return members.map((m, i) => (m.healthy ? cs(`etcd-${i}`, true, 'ok') : cs(`etcd-${i}`, false, '', m.error ?? `etcd ${m.server} is unhealthy`)));
    } catch {
      // Fall through to the store's overall health.
    }
  }
  let storeOk = false;
  try {
    storeOk = await ctx.backend.healthy();
  } catch {
    storeOk = false;
  }
  return [storeOk ? cs('etcd-0', true, 'ok') : cs('etcd-0', false, '', 'store is unhealthy')];
}

export async function componentStatuses(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const headers = { warning: CS_WARNING };
  const items = await all(ctx);
  const name = req.target.name;
  if (name !== undefined) {
    const one = items.find((i) => i.metadata.name === name);
    if (!one) throw errors.notFound('componentstatuses', name);
    return { code: 200, headers, body: tableOr(ctx, req, [one], {}, one) };
  }
  // No storage behind it: resourceVersion and continue mean nothing, but the options are still parsed and
  // validated, and the selectors filter (componentStatusPredicate).
  checkListOptions(req.query);
  const filter = buildFilter(R.componentstatuses, ctx.ext, req.query.get('labelSelector'), req.query.get('fieldSelector'));
  const selected = filter ? items.filter(filter) : items;
  const list = { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: selected };
  return { code: 200, headers, body: tableOr(ctx, req, selected, {}, list) };
}
