// kubectl get for namespaces, services, endpoints, configmaps, secrets, serviceaccounts, componentstatuses.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, formatLabels, int, list, listWithMore, nameCol, obj, str } from './util.ts';

export const namespacePrinter: TablePrinter = {
  columns: [nameCol, col('Status'), ageCol],
  cells: (ns, now) => [ns.metadata.name ?? '', str(obj(ns.status).phase), since(ns.metadata.creationTimestamp, now)],
};

function externalIP(spec: Record<string, unknown>, status: Record<string, unknown>): string {
  const external = (Array.isArray(spec.externalIPs) ? spec.externalIPs : []).map(str).filter((s) => s !== '');
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = [...new Set(list(obj(status.loadBalancer).ingress).map((i) => str(i.ip) || str(i.hostname)).filter((s) => s !== ''))].sort();
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(spec: Record<string, unknown>): string {
  const ports = list(spec.ports).map((p) => {
    const proto = str(p.protocol) || 'TCP';
    return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${proto}` : `${int(p.port)}/${proto}`;
  });
  return ports.length === 0 ? '<none>' : ports.join(',');
}

export const servicePrinter: TablePrinter = {
  columns: [nameCol, col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), ageCol, col('Selector', 'string', 1)],
  cells(svc, now) {
    const spec = obj(svc.spec);
    return [
      svc.metadata.name ?? '',
      str(spec.type),
      (Array.isArray(spec.clusterIPs) ? str(spec.clusterIPs[0]) : str(spec.clusterIP)) || '<none>',
      externalIP(spec, obj(svc.status)),
      servicePorts(spec),
      since(svc.metadata.creationTimestamp, now),
      formatLabels(spec.selector),
    ];
  },
};

export function formatEndpoints(subsets: unknown): string {
  const ss = list(subsets);
  if (ss.length === 0) return '<none>';
  const items: string[] = [];
  for (const s of ss) {
    const addrs = list(s.addresses);
    const ports = list(s.ports);
    if (ports.length === 0) for (const a of addrs) items.push(str(a.ip));
    else
      for (const p of ports)
        for (const a of addrs) {
          const ip = str(a.ip);
          items.push(ip.includes(':') ? `[${ip}]:${int(p.port)}` : `${ip}:${int(p.port)}`);
        }
  }
  return listWithMore(items, 3, '');
}

export const endpointsPrinter: TablePrinter = {
  columns: [nameCol, col('Endpoints'), ageCol],
  cells: (ep, now) => [ep.metadata.name ?? '', formatEndpoints(ep.subsets), since(ep.metadata.creationTimestamp, now)],
};

export const configMapPrinter: TablePrinter = {
  columns: [nameCol, col('Data'), ageCol],
  cells: (cm, now) => [
    cm.metadata.name ?? '',
    Object.keys(obj(cm.data)).length + Object.keys(obj(cm.binaryData)).length,
    since(cm.metadata.creationTimestamp, now),
  ],
};

export const secretPrinter: TablePrinter = {
  columns: [nameCol, col('Type'), col('Data'), ageCol],
  cells: (s, now) => [s.metadata.name ?? '', str(s.type), Object.keys(obj(s.data)).length, since(s.metadata.creationTimestamp, now)],
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [nameCol, col('Secrets', 'string'), ageCol],
  cells: (sa, now) => [sa.metadata.name ?? '', list(sa.secrets).length, since(sa.metadata.creationTimestamp, now)],
};

export const componentStatusPrinter: TablePrinter = {
  columns: [nameCol, col('Status'), col('Message'), col('Error')],
  cells(cs) {
    let status = 'Unknown';
    let message = '';
    let error = '';
    const healthy = list(cs.conditions).find((c) => c.type === 'Healthy');
    if (healthy) {
      status = healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
      message = str(healthy.message);
      error = str(healthy.error);
    }
    return [cs.metadata.name ?? '', status, message, error];
  },
};
