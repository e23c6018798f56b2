// kubectl get deployments / replicasets, with the wide Containers, Images, Selector columns.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, int, nameCol, obj, REPLICA_COLUMNS, replicaCells, templateColumns } from './util.ts';

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
  columns: REPLICA_COLUMNS,
  cells: (rs, now) => [...replicaCells(rs, now), ...templateColumns(obj(rs.spec))],
};
