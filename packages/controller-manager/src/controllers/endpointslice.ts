// endpointslice-controller: for every Service with a selector, EndpointSlices labelled
// kubernetes.io/service-name and managed-by endpointslice-controller.k8s.io, owned by the Service, one group
// per distinct port set, at most 100 endpoints each, with ready/serving/terminating conditions.
import { R, type Endpoint, type EndpointPort, type EndpointSlice, type Pod, type Service } from '@kemu/api';
import { isNotFound, metaKey, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { endpointPorts, enqueueServicesOnPodChange, podReady, servicePods } from './endpoints.ts';

export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.k8s.io';
export const MAX_ENDPOINTS_PER_SLICE = 100;

export interface DesiredSlice {
  ports: EndpointPort[];
  endpoints: Endpoint[];
}

export function desiredSlices(svc: Service, pods: readonly Pod[], max = MAX_ENDPOINTS_PER_SLICE): DesiredSlice[] {
  const groups = new Map<string, DesiredSlice>();
  for (const pod of servicePods(svc, pods)) {
    const ports = endpointPorts(svc, pod);
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (!g) {
      g = { ports, endpoints: [] };
      groups.set(key, g);
    }
    const terminating = pod.metadata.deletionTimestamp !== undefined;
    const serving = podReady(pod);
    const ep: Endpoint = {
      addresses: [pod.status?.podIP ?? ''],
      conditions: { ready: serving && !terminating, serving, terminating },
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
    };
    if (pod.spec.nodeName) ep.nodeName = pod.spec.nodeName;
    if (pod.spec.hostname && pod.spec.subdomain === svc.metadata.name) ep.hostname = pod.spec.hostname;
    g.endpoints.push(ep);
  }
  const out: DesiredSlice[] = [];
  const keys = [...groups.keys()].sort();
  for (const k of keys) {
    const g = groups.get(k) as DesiredSlice;
    g.endpoints.sort((a, b) => (a.addresses[0] ?? '').localeCompare(b.addresses[0] ?? '', 'en', { numeric: true }));
    for (let i = 0; i < g.endpoints.length; i += max) out.push({ ports: g.ports, endpoints: g.endpoints.slice(i, i + max) });
  }
  // A Service that selects nothing still has one (empty) slice, as Kubernetes keeps a placeholder.
  if (out.length === 0) out.push({ ports: [], endpoints: [] });
  return out;
}

export class EndpointSliceController implements Controller {
  readonly name = 'endpointslice-controller';
  private readonly services: SharedInformer<Service>;
  private readonly pods: SharedInformer<Pod>;
  private readonly slices: SharedInformer<EndpointSlice>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.services = ctx.informers.informerFor<Service>(R.services);
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
    this.slices = ctx.informers.informerFor<EndpointSlice>(R.endpointslices);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: ctx.options['concurrent-service-endpoint-syncs'], sync: (k) => this.sync(k) }).waitFor(
      this.services,
      this.pods,
      this.slices,
    );
    enqueueServicesOnPodChange(this.services, this.pods, this.worker);
    const onSlice = (s: EndpointSlice) => {
      const svc = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (svc && s.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY) this.worker.add(`${s.metadata.namespace ?? ''}/${svc}`);
    };
    this.slices.addEventHandler({ onDelete: (s) => onSlice(unwrapDeleted(s)), onUpdate: (_o, s) => onSlice(s) });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private ownedSlices(namespace: string, name: string): EndpointSlice[] {
    return this.slices.store
      .byIndex('namespace', namespace)
      .filter((s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === name && s.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY)
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const svc = this.services.store.get(key);
    const existing = this.ownedSlices(namespace, name);
    if (!svc || !svc.spec?.selector) {
      // Gone (or no longer selecting): the slices this controller made go too.
      for (const s of existing) await this.deleteSlice(s);
      return;
    }
    const desired = desiredSlices(svc, this.pods.store.byIndex('namespace', namespace));
    const labels = { ...(svc.metadata.labels ?? {}), [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: MANAGED_BY };
    const owner = { apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
    const unused = [...existing];
    for (const d of desired) {
      // Reuse a slice with the same ports first, then any left over.
      let i = unused.findIndex((s) => JSON.stringify(s.ports ?? []) === JSON.stringify(d.ports));
      if (i < 0) i = unused.length ? 0 : -1;
      const cur = i >= 0 ? unused.splice(i, 1)[0] : undefined;
      if (cur) {
        const same =
          JSON.stringify(cur.endpoints ?? []) === JSON.stringify(d.endpoints) &&
          JSON.stringify(cur.ports ?? []) === JSON.stringify(d.ports) &&
          JSON.stringify(cur.metadata.labels ?? {}) === JSON.stringify(labels);
        if (same) continue;
        await this.ctx.client.update<EndpointSlice>(R.endpointslices, namespace, {
          ...cur,
          metadata: { ...cur.metadata, labels, ownerReferences: [owner] },
          endpoints: d.endpoints,
          ports: d.ports,
        });
        continue;
      }
      await this.ctx.client.create<EndpointSlice>(R.endpointslices, namespace, {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { generateName: `${name}-`, namespace, labels, ownerReferences: [owner] },
        addressType: 'IPv4',
        endpoints: d.endpoints,
        ports: d.ports,
      });
    }
    for (const s of unused) await this.deleteSlice(s);
  }

  private async deleteSlice(s: EndpointSlice): Promise<void> {
    try {
      await this.ctx.client.delete(R.endpointslices, s.metadata.namespace, s.metadata.name ?? '');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}


export const endpointSliceDescriptor: ControllerDescriptor = {
  name: 'endpointslice-controller',
  serviceAccountName: 'endpointslice-controller',
  aliases: ['endpointslice'],
  enabledByDefault: true,
  create: (ctx) => new EndpointSliceController(ctx),
};
