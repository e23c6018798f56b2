// resourcequota-controller (pkg/controller/resourcequota): keeps each ResourceQuota's status — hard from spec,
// used summed over the namespace's objects for every resource it limits (compute resources of pods, object
// counts by count/<resource>.<group> and the classic names). Recalculated when a quota changes, when an object
// it counts comes or goes in its namespace (or changes what it is charged: a pod's phase, a service's type, a
// claim's storage), and for every quota each --resource-quota-sync-period. Kubernetes' QuotaMonitor watches
// every quotable resource from the start; kemu starts a watch for a resource once a quota names it.
import {
  R,
  RESOURCES,
  addResourceLists,
  maskResourceList,
  matchingResources,
  objectUsage,
  quotaMatches,
  resourceListsEqual,
  type KubeObject,
  type Pod,
  type ResourceInfo,
  type ResourceList,
  type ResourceQuota,
} from '@kemu/api';
import { unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

export class ResourceQuotaController implements Controller {
  readonly name = 'resourcequota-controller';
  private readonly quotaInformer: SharedInformer<ResourceQuota>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  /** The replenishment watches by resource (group/plural), beside the pod informer. */
  private readonly monitors = new Map<string, SharedInformer<KubeObject>>();

  constructor(private readonly ctx: ControllerContext) {
    this.quotaInformer = ctx.informers.informerFor<ResourceQuota>(R.resourcequotas);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    this.worker = new KeyedWorker(ctx, {
      name: 'resourcequota_primary',
      workers: ctx.options['concurrent-resource-quota-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.quotaInformer, this.podInformer);
    this.quotaInformer.addEventHandler({
      onAdd: (q) => this.worker.enqueue(q),
      // Only a change of what is limited needs a recount; status writes (our own) do not.
      onUpdate: (old, q) => {
        if (JSON.stringify(old.spec ?? {}) !== JSON.stringify(q.spec ?? {}) || !resourceListsEqual(q.status?.hard ?? {}, q.spec?.hard ?? {})) this.worker.enqueue(q);
      },
      onDelete: () => undefined,
    });
    // Replenishment: a pod that comes, changes phase or goes frees or takes quota.
    this.podInformer.addEventHandler({
      onAdd: (p) => this.namespaceChanged(p),
      onUpdate: (_o, p) => this.namespaceChanged(p),
      onDelete: (obj) => this.namespaceChanged(unwrapDeleted(obj)),
    });
  }

  /** The informer of a counted resource, started (with its replenishment handlers) the first time it is needed. */
  private monitor(r: ResourceInfo): SharedInformer<KubeObject> {
    if (r === R.pods) return this.podInformer as unknown as SharedInformer<KubeObject>;
    const id = `${r.group}/${r.plural}`;
    let inf = this.monitors.get(id);
    if (!inf) {
      inf = this.ctx.informers.informerFor<KubeObject>(r);
      this.monitors.set(id, inf);
      inf.addEventHandler({
        onAdd: (o) => this.namespaceChanged(o),
        onUpdate: (old, o) => {
          if (chargeChanged(r, old, o)) this.namespaceChanged(o);
        },
        onDelete: (obj) => this.namespaceChanged(unwrapDeleted(obj)),
      });
    }
    return inf;
  }

  private namespaceChanged(o: KubeObject): void {
    for (const q of this.quotaInformer.store.byIndex('namespace', o.metadata.namespace ?? '')) this.worker.enqueue(q);
  }

  async run(): Promise<void> {
    const { signal, clock } = this.ctx;
    const workers = this.worker.run();
    // The full resync: every quota each --resource-quota-sync-period.
    const period = this.ctx.options['resource-quota-sync-period'];
    while (!signal.aborted && period > 0) {
      try {
        await clock.sleep(period, signal);
      } catch {
        break;
      }
      for (const q of this.quotaInformer.store.list()) this.worker.enqueue(q);
    }
    await workers;
  }

  /** The usage of every resource the quota limits, "0" for those nothing uses. */
  async usage(q: ResourceQuota): Promise<ResourceList> {
    const ns = q.metadata.namespace ?? '';
    const hardNames = Object.keys(q.spec?.hard ?? {});
    let used: ResourceList = Object.fromEntries(hardNames.map((n) => [n, '0']));
    const now = this.ctx.clock.now();
    for (const r of RESOURCES) {
      if (!r.namespaced || !r.verbs.includes('list')) continue;
      const names = matchingResources(r, hardNames);
      if (names.length === 0) continue;
      const inf = this.monitor(r);
      // Until its watch has synced a resource is listed from the server (the sync's adds then recount).
      const objects: KubeObject[] = inf.hasSynced() ? inf.store.byIndex('namespace', ns) : (await this.ctx.client.list(r, ns)).items;
      for (const o of objects) if (quotaMatches(q, r, o)) used = addResourceLists(used, maskResourceList(objectUsage(r, o, now), names));
    }
    return used;
  }

  async sync(k: string): Promise<void> {
    const cached = this.quotaInformer.store.get(k);
    if (!cached) return;
    const q = structuredClone(cached);
    const hard = q.spec?.hard ?? {};
    const used = await this.usage(q);
    const st = q.status;
    if (st && resourceListsEqual(st.hard ?? {}, hard) && resourceListsEqual(st.used ?? {}, used)) return;
    q.status = { hard, used };
    await this.ctx.client.updateStatus(R.resourcequotas, q.metadata.namespace, q);
  }
}

/** The update filters of Kubernetes' QuotaMonitor: only these updates change what an object is charged. */
function chargeChanged(r: ResourceInfo, old: KubeObject, cur: KubeObject): boolean {
  if (r.group !== '' || (r.plural !== 'services' && r.plural !== 'persistentvolumeclaims')) return false;
  // The time only matters for pods (their deletion grace period), which are not filtered here.
  return !resourceListsEqual(objectUsage(r, old, 0), objectUsage(r, cur, 0));
}

export const resourceQuotaDescriptor: ControllerDescriptor = {
  name: 'resourcequota-controller',
  serviceAccountName: 'resourcequota-controller',
  aliases: ['resourcequota'],
  enabledByDefault: true,
  create: (ctx) => new ResourceQuotaController(ctx),
};
