// kube-proxy's two watches, Services and EndpointSlices (all namespaces), through the apiserver with the
// kubelet's client, feeding the ServiceTable. Resolves once both have listed.
import { R, type EndpointSlice, type Service } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { RestClient } from '@kemu/client';
import { runThinWatch } from '../watch.ts';
import type { ServiceTable } from './service-table.ts';

const nsName = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name ?? ''}`;

export function watchServices(client: RestClient, table: ServiceTable, deps: { clock: Clock; logger: Logger; signal: AbortSignal }): Promise<void> {
  let services!: () => void;
  let slices!: () => void;
  const synced = Promise.all([new Promise<void>((r) => (services = r)), new Promise<void>((r) => (slices = r))]);
  void runThinWatch<Service>(client, R.services, undefined, nsName, {
    upsert: (s) => table.upsertService(s),
    delete: (s) => table.deleteService(s),
    listed: (present) => table.keepServices(present),
    synced: () => services(),
  }, deps);
  void runThinWatch<EndpointSlice>(client, R.endpointslices, undefined, nsName, {
    upsert: (s) => table.upsertSlice(s),
    delete: (s) => table.deleteSlice(s),
    listed: (present) => table.keepSlices(present),
    synced: () => slices(),
  }, deps);
  return synced.then(() => undefined);
}
