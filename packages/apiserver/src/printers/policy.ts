// kubectl get pdb, rc, podtemplates, limits, quota, ing, ingressclasses, netpol, runtimeclasses
// (pkg/printers/internalversion/printers.go, kubectl 1.32's columns).
import { formatLabelSelector, formatTime } from '@kemu/api';
import type { LabelSelector } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, containerColumns, formatLabels, int, list, nameCol, obj, REPLICA_COLUMNS, replicaCells, str } from './util.ts';

const intOrString = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : 'N/A');

export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [nameCol, col('Min Available'), col('Max Unavailable'), col('Allowed Disruptions', 'integer'), ageCol],
  cells(pdb, now) {
    const spec = obj(pdb.spec);
    return [pdb.metadata.name ?? '', intOrString(spec.minAvailable), intOrString(spec.maxUnavailable), int(obj(pdb.status).disruptionsAllowed), since(pdb.metadata.creationTimestamp, now)];
  },
};

export const replicationControllerPrinter: TablePrinter = {
  columns: REPLICA_COLUMNS,
  // A ReplicationController's selector is a plain label map.
  cells: (rc, now) => [...replicaCells(rc, now), ...containerColumns(obj(obj(rc.spec).template).spec), formatLabels(obj(rc.spec).selector)],
};

export const podTemplatePrinter: TablePrinter = {
  columns: [nameCol, col('Containers'), col('Images'), col('Pod Labels')],
  cells(pt) {
    const tpl = obj(pt.template);
    return [pt.metadata.name ?? '', ...containerColumns(tpl.spec), formatLabels(obj(tpl.metadata).labels)];
  },
};

export const limitRangePrinter: TablePrinter = {
  columns: [nameCol, col('Created At', 'date')],
  cells: (lr) => [lr.metadata.name ?? '', lr.metadata.creationTimestamp ?? formatTime(0)],
};

/** "requests.cpu: 0/1, pods: 1/2" in the Request column; limits.* go to the Limit column. */
export const resourceQuotaPrinter: TablePrinter = {
  columns: [nameCol, ageCol, col('Request'), col('Limit')],
  cells(q, now) {
    const st = obj(q.status);
    const hard = obj(st.hard);
    const used = obj(st.used);
    const request: string[] = [];
    const limit: string[] = [];
    for (const r of Object.keys(hard).sort()) {
      const pieces = r.split('.');
      const cell = `${r}: ${str(used[r]) || '0'}/${str(hard[r])}`;
      (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(cell);
    }
    return [q.metadata.name ?? '', since(q.metadata.creationTimestamp, now), request.join(', '), limit.join(', ')];
  },
};

function formatHosts(rules: Record<string, unknown>[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === max) more = true;
    if (!more && str(r.host) !== '') hosts.push(str(r.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

export const ingressPrinter: TablePrinter = {
  columns: [nameCol, col('Class'), col('Hosts'), col('Address'), col('Ports'), ageCol],
  cells(ing, now) {
    const spec = obj(ing.spec);
    const lb = list(obj(obj(ing.status).loadBalancer).ingress);
    const address = lb.map((i) => str(i.ip) || str(i.hostname)).filter((s) => s !== '').join(',');
    return [
      ing.metadata.name ?? '',
      str(spec.ingressClassName) || '<none>',
      formatHosts(list(spec.rules)),
      address,
      list(spec.tls).length > 0 ? '80, 443' : '80',
      since(ing.metadata.creationTimestamp, now),
    ];
  },
};

export const ingressClassPrinter: TablePrinter = {
  columns: [nameCol, col('Controller'), col('Parameters'), ageCol],
  cells(ic, now) {
    const spec = obj(ic.spec);
    let params = '<none>';
    if (spec.parameters && typeof spec.parameters === 'object') {
      const p = obj(spec.parameters);
      params = str(p.kind) + (typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : '') + `/${str(p.name)}`;
    }
    return [ic.metadata.name ?? '', str(spec.controller), params, since(ic.metadata.creationTimestamp, now)];
  },
};

export const networkPolicyPrinter: TablePrinter = {
  columns: [nameCol, col('Pod-Selector'), ageCol],
  cells: (np, now) => [np.metadata.name ?? '', formatLabelSelector(obj(obj(np.spec).podSelector) as LabelSelector), since(np.metadata.creationTimestamp, now)],
};

export const runtimeClassPrinter: TablePrinter = {
  columns: [nameCol, col('Handler'), ageCol],
  cells: (rc, now) => [rc.metadata.name ?? '', str(rc.handler), since(rc.metadata.creationTimestamp, now)],
};
