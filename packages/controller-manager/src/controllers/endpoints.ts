// endpoints-controller: for every Service with a selector, the legacy Endpoints object of the same name,
// with the matching pods' IPs in addresses (Ready) or notReadyAddresses, grouped into subsets by their
// resolved ports. Services without a selector are left to whoever manages their Endpoints.
import { R, selectorFromSet, selectorMatches, type EndpointAddress, type EndpointPort, type EndpointSubset, type Endpoints, type Pod, type Service, type ServicePort } from '@kemu/api';
import { isAlreadyExists, isNotFound, metaKey, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

/** Pods a Service selects: same namespace, matching labels, with an IP, not terminal. */
export function servicePods(svc: Service, pods: readonly Pod[]): Pod[] {
  const sel = selectorFromSet(svc.spec?.selector);
  return pods.filter(
    (p) =>
      (p.metadata.namespace ?? '') === (svc.metadata.namespace ?? '') &&
      selectorMatches(sel, p.metadata.labels) &&
      !!p.status?.podIP &&
      p.status.phase !== 'Succeeded' &&
      p.status.phase !== 'Failed',
  );
}

export function podReady(p: Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The pod's port for a service port: targetPort by number, by container port name, or the port itself. */
export function resolvePort(sp: ServicePort, pod: Pod): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec.containers) {
    const p = c.ports?.find((x) => x.name === target && (x.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'));
    if (p) return p.containerPort;
  }
  return undefined;
}

export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = resolvePort(sp, pod);
    if (port === undefined) continue;
    const ep: EndpointPort = { port, protocol: sp.protocol ?? 'TCP' };
    if (sp.name) ep.name = sp.name;
    if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

function address(pod: Pod, svc: Service): EndpointAddress {
  const a: EndpointAddress = {
    ip: pod.status?.podIP ?? '',
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
  };
  if (pod.spec.nodeName) a.nodeName = pod.spec.nodeName;
  if (pod.spec.hostname && pod.spec.subdomain === svc.metadata.name) a.hostname = pod.spec.hostname;
  return a;
}

export function desiredSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const groups = new Map<string, EndpointSubset>();
  for (const pod of servicePods(svc, pods)) {
    const terminating = pod.metadata.deletionTimestamp !== undefined;
    if (terminating && !svc.spec?.publishNotReadyAddresses) continue;
    const ports = endpointPorts(svc, pod);
    if ((svc.spec?.ports ?? []).length > 0 && ports.length === 0) continue;
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (!g) {
      g = { ports };
      groups.set(key, g);
    }
    const ready = podReady(pod) || svc.spec?.publishNotReadyAddresses === true;
    const list = ready ? (g.addresses ??= []) : (g.notReadyAddresses ??= []);
    list.push(address(pod, svc));
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress) => a.ip.localeCompare(b.ip, 'en', { numeric: true });
  const out = [...groups.values()];
  for (const g of out) {
    g.addresses?.sort(byIP);
    g.notReadyAddresses?.sort(byIP);
    if (g.ports?.length === 0) delete g.ports;
  }
  return out.sort((a, b) => JSON.stringify(a.ports ?? []).localeCompare(JSON.stringify(b.ports ?? [])));
}

/** Work keys for the services selecting a pod (old and new labels both count). */
export function servicesForPod(services: SharedInformer<Service>, pod: Pod): string[] {
  return services.store
    .byIndex('namespace', pod.metadata.namespace ?? '')
    .filter((s) => s.spec?.selector && selectorMatches(selectorFromSet(s.spec.selector), pod.metadata.labels))
    .map(metaKey);
}

/**
 * The event wiring both Service-keyed controllers (endpoints, endpointslice) share: a Service change
 * enqueues that Service; a pod change enqueues every Service selecting the pod before or after it.
 */
export function enqueueServicesOnPodChange(services: SharedInformer<Service>, pods: SharedInformer<Pod>, worker: KeyedWorker): void {
  services.addEventHandler({
    onAdd: (s) => worker.enqueue(s),
    onUpdate: (_o, s) => worker.enqueue(s),
    onDelete: (s) => worker.enqueue(s),
  });
  const onPod = (p: Pod) => servicesForPod(services, p).forEach((k) => worker.add(k));
  pods.addEventHandler({
    onAdd: onPod,
    onUpdate: (o, p) => {
      onPod(o);
      onPod(p);
    },
    onDelete: (p) => onPod(unwrapDeleted(p)),
  });
}

export class EndpointsController implements Controller {
  readonly name = 'endpoints-controller';
  private readonly services: SharedInformer<Service>;
  private readonly pods: SharedInformer<Pod>;
  private readonly endpoints: SharedInformer<Endpoints>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.services = ctx.informers.informerFor<Service>(R.services);
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
    this.endpoints = ctx.informers.informerFor<Endpoints>(R.endpoints);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: ctx.options['concurrent-endpoint-syncs'], sync: (k) => this.sync(k) }).waitFor(
      this.services,
      this.pods,
      this.endpoints,
    );
    enqueueServicesOnPodChange(this.services, this.pods, this.worker);
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const svc = this.services.store.get(key);
    const current = this.endpoints.store.get(key);
    if (!svc) {
      // The Service is gone: so are its Endpoints (only ones this controller would have written).
      if (current && !current.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror']) {
        try {
          await this.ctx.client.delete(R.endpoints, namespace, name);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
      return;
    }
    if (!svc.spec?.selector) return;
    const subsets = desiredSubsets(svc, this.pods.store.byIndex('namespace', namespace));
    const labels = { ...(svc.metadata.labels ?? {}) };
    if (current && JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) && JSON.stringify(current.metadata.labels ?? {}) === JSON.stringify(labels)) return;
    const ep: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels }, subsets };
    if (current) {
      await this.ctx.client.update(R.endpoints, namespace, { ...ep, metadata: { ...current.metadata, labels } });
      return;
    }
    try {
      await this.ctx.client.create(R.endpoints, namespace, ep);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      throw new Error(`endpoints ${key} already exist; retrying with the current version`);
    }
  }
}

export const endpointsDescriptor: ControllerDescriptor = {
  name: 'endpoints-controller',
  serviceAccountName: 'endpoint-controller',
  aliases: ['endpoint'],
  enabledByDefault: true,
  create: (ctx) => new EndpointsController(ctx),
};
