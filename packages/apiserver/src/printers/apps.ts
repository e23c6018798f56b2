// kubectl get deployments / replicasets, with the wide Containers, Images, Selector columns.
import { formatLabelSelector } from '@kemu/api';
import type { LabelSelector } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, int, list, nameCol, obj, str } from './util.ts';

function templateColumns(spec: Record<string, unknown>): string[] {
  const containers = list(obj(obj(spec.template).spec).containers);
  return [
    containers.map((c) => str(c.name)).join(','),
    containers.map((c) => str(c.image)).join(','),
    formatLabelSelector(spec.selector === undefined ? undefined : (obj(spec.selector) as LabelSelector)),
  ];
}

export const deploymentPrinter: TablePrinter = {
  columns: [
    nameCol,
    col('Ready'),
    col('Up-to-date'),
    col('Available'),
    ageCol,
    col('Containers', 'string', 1),
    col('Images', 'string', 1),
    col('Selector', 'string', 1),
  ],
  cells(d, now) {
    const spec = obj(d.spec);
    const st = obj(d.status);
    return [
      d.metadata.name ?? '',
      `${int(st.readyReplicas)}/${int(spec.replicas)}`,
      int(st.updatedReplicas),
      int(st.availableReplicas),
      since(d.metadata.creationTimestamp, now),
      ...templateColumns(spec),
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameCol,
    col('Desired', 'integer'),
    col('Current', 'integer'),
    col('Ready', 'integer'),
    ageCol,
    col('Containers', 'string', 1),
    col('Images', 'string', 1),
    col('Selector', 'string', 1),
  ],
  cells(rs, now) {
    const spec = obj(rs.spec);
    const st = obj(rs.status);
    return [
      rs.metadata.name ?? '',
      int(spec.replicas),
      int(st.replicas),
      int(st.readyReplicas),
      since(rs.metadata.creationTimestamp, now),
      ...templateColumns(spec),
    ];
  },
};
