// kubectl get leases, endpointslices, priorityclasses.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, int, list, listWithMore, nameCol, obj, str } from './util.ts';

export const leasePrinter: TablePrinter = {
  columns: [nameCol, col('Holder'), ageCol],
  cells: (l, now) => [l.metadata.name ?? '', str(obj(l.spec).holderIdentity), since(l.metadata.creationTimestamp, now)],
};

export const endpointSlicePrinter: TablePrinter = {
  columns: [nameCol, col('AddressType'), col('Ports'), col('Endpoints'), ageCol],
  cells(es, now) {
    const ports = list(es.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : str(p.name) || '*'));
    const addrs = list(es.endpoints).flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.map(str) : []));
    return [
      es.metadata.name ?? '',
      str(es.addressType),
      listWithMore(ports, 3, '<unset>'),
      listWithMore(addrs, 3, '<unset>'),
      since(es.metadata.creationTimestamp, now),
    ];
  },
};

export const priorityClassPrinter: TablePrinter = {
  columns: [nameCol, col('Value', 'integer'), col('Global-Default', 'boolean'), ageCol, col('PreemptionPolicy')],
  cells: (pc, now) => [
    pc.metadata.name ?? '',
    int(pc.value),
    pc.globalDefault === true,
    since(pc.metadata.creationTimestamp, now),
    str(pc.preemptionPolicy) || 'PreemptLowerPriority',
  ],
};
