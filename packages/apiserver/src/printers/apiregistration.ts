// kubectl get apiservices: NAME, SERVICE (namespace/name, or Local), AVAILABLE (True, or "False (Reason)"),
// AGE, as kube-aggregator's APIService table.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, list, nameCol, obj, str } from './util.ts';

export const apiServicePrinter: TablePrinter = {
  columns: [
    nameCol,
    { name: 'Service', type: 'string', description: 'The reference to the service that hosts this API endpoint.' },
    { name: 'Available', type: 'string', description: 'Whether this service is available.' },
    ageCol,
  ],
  cells: (o, now) => {
    const svc = obj(o.spec).service;
    const service = svc && typeof svc === 'object' ? `${str(obj(svc).namespace)}/${str(obj(svc).name)}` : 'Local';
    const c = list(obj(o.status).conditions).find((x) => x.type === 'Available');
    const status = !c ? 'Unknown' : c.status === 'True' || str(c.reason) === '' ? str(c.status) : `${str(c.status)} (${str(c.reason)})`;
    return [o.metadata.name ?? '', service, status, since(o.metadata.creationTimestamp, now)];
  },
};
