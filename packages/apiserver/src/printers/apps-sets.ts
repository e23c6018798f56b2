// kubectl get daemonsets / statefulsets / controllerrevisions (printDaemonSet, printStatefulSet,
// printControllerRevision), with the wide Containers, Images (and Selector for DaemonSets) columns.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, containerColumns, formatLabels, int, nameCol, obj, templateColumns } from './util.ts';

export const daemonSetPrinter: TablePrinter = {
  columns: [
    nameCol,
    col('Desired', 'integer'),
    col('Current', 'integer'),
    col('Ready', 'integer'),
    col('Up-to-date', 'integer'),
    col('Available', 'integer'),
    col('Node Selector'),
    ageCol,
    col('Containers', 'string', 1),
    col('Images', 'string', 1),
    col('Selector', 'string', 1),
  ],
  cells(ds, now) {
    const spec = obj(ds.spec);
    const st = obj(ds.status);
    return [
      ds.metadata.name ?? '',
      int(st.desiredNumberScheduled),
      int(st.currentNumberScheduled),
      int(st.numberReady),
      int(st.updatedNumberScheduled),
      int(st.numberAvailable),
      formatLabels(obj(obj(obj(spec.template).spec).nodeSelector)),
      since(ds.metadata.creationTimestamp, now),
      ...templateColumns(spec),
    ];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columns: [nameCol, col('Ready'), ageCol, col('Containers', 'string', 1), col('Images', 'string', 1)],
  cells(sts, now) {
    const spec = obj(sts.spec);
    const st = obj(sts.status);
    return [sts.metadata.name ?? '', `${int(st.readyReplicas)}/${int(spec.replicas)}`, since(sts.metadata.creationTimestamp, now), ...containerColumns(obj(spec.template).spec)];
  },
};

export const controllerRevisionPrinter: TablePrinter = {
  columns: [nameCol, col('Controller'), col('Revision', 'integer'), ageCol],
  cells(cr, now) {
    const ref = (cr.metadata.ownerReferences ?? []).find((r) => r.controller);
    let controller = '<none>';
    if (ref) {
      const slash = ref.apiVersion.indexOf('/');
      const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
      controller = `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
    }
    return [cr.metadata.name ?? '', controller, int(cr.revision), since(cr.metadata.creationTimestamp, now)];
  },
};
