// kubectl get nodes: Name, Status (Ready/NotReady/Unknown[,SchedulingDisabled]), Roles, Age, Version |
// Internal-IP, External-IP, OS-Image, Kernel-Version, Container-Runtime.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, list, nameCol, obj, str } from './util.ts';

const ROLE_PREFIX = 'node-role.kubernetes.io/';

export function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export const nodePrinter: TablePrinter = {
  columns: [
    nameCol,
    col('Status'),
    col('Roles'),
    ageCol,
    col('Version'),
    col('Internal-IP', 'string', 1),
    col('External-IP', 'string', 1),
    col('OS-Image', 'string', 1),
    col('Kernel-Version', 'string', 1),
    col('Container-Runtime', 'string', 1),
  ],
  cells(node, now) {
    const spec = obj(node.spec);
    const status = obj(node.status);
    const readyCond = list(status.conditions).find((c) => c.type === 'Ready');
    const parts: string[] = [];
    if (readyCond) parts.push(readyCond.status === 'True' ? 'Ready' : 'NotReady');
    if (parts.length === 0) parts.push('Unknown');
    if (spec.unschedulable === true) parts.push('SchedulingDisabled');
    const info = obj(status.nodeInfo);
    const addr = (type: string): string => str(list(status.addresses).find((a) => a.type === type)?.address) || '<none>';
    return [
      node.metadata.name ?? '',
      parts.join(','),
      nodeRoles(node.metadata.labels),
      since(node.metadata.creationTimestamp, now),
      str(info.kubeletVersion),
      addr('InternalIP'),
      addr('ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};
