// namespace-controller: a namespace with a deletionTimestamp has every namespaced object in it deleted
// (each resource in the table), its status conditions kept as Kubernetes keeps them, and once nothing is
// left, the "kubernetes" finalizer removed through PUT namespaces/<name>/finalize (the apiserver then
// deletes the namespace).
import { R, RESOURCES, formatTime, type Condition, type KubeObject, type Namespace, type Pod, type ResourceInfo } from '@kemu/api';
import { isConflict, isNotFound, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

export const FINALIZER_KUBERNETES = 'kubernetes';

/** The condition each type shows when all is well (namespace deletion's "ok" messages). */
const OK: Record<string, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

function contentResources(): ResourceInfo[] {
  return RESOURCES.filter((r) => r.namespaced && r.verbs.includes('list') && r.verbs.includes('delete'));
}

interface ContentResult {
  remaining: Map<string, number>;
  finalizers: Map<string, number>;
  errors: string[];
  /** Seconds until graceful deletions are expected to finish. */
  estimate: number;
}

export class NamespaceController implements Controller {
  readonly name = 'namespace-controller';
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.namespaces = ctx.informers.informerFor<Namespace>(R.namespaces);
    this.worker = new KeyedWorker(ctx, {
      name: this.name,
      workers: ctx.options['concurrent-namespace-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.namespaces);
    const enqueue = (ns: Namespace) => {
      if (ns.metadata.deletionTimestamp) this.worker.add(ns.metadata.name ?? '');
    };
    this.namespaces.addEventHandler({ onAdd: enqueue, onUpdate: (_o, ns) => enqueue(ns) }, ctx.options['namespace-sync-period']);
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  async sync(name: string): Promise<void> {
    const cached = this.namespaces.store.get(name);
    if (!cached?.metadata.deletionTimestamp) return;
    let ns: Namespace;
    try {
      ns = await this.ctx.client.get<Namespace>(R.namespaces, undefined, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if (!(ns.spec?.finalizers ?? []).includes(FINALIZER_KUBERNETES)) return;

    const result = await this.deleteAllContent(name);
    ns = await this.updateConditions(ns, result);
    if (result.errors.length > 0) throw new Error(`failed to delete all content of namespace ${name}: ${result.errors.join('; ')}`);
    if (result.remaining.size > 0) {
      // Content is going away (graceful pod deletion, finalizers): look again in a little while.
      this.worker.addAfter(name, (Math.floor(result.estimate / 2) + 1) * 1000);
      return;
    }
    await this.finalize(ns);
  }

  private async deleteAllContent(ns: string): Promise<ContentResult> {
    const out: ContentResult = { remaining: new Map(), finalizers: new Map(), errors: [], estimate: 0 };
    await Promise.all(
      contentResources().map(async (r) => {
        try {
          await this.deleteResource(r, ns);
          const left = await this.ctx.client.list<KubeObject>(r, ns);
          if (left.items.length === 0) return;
          out.remaining.set(`${r.plural}.${r.group}`, left.items.length);
          for (const o of left.items) {
            for (const f of o.metadata.finalizers ?? []) out.finalizers.set(f, (out.finalizers.get(f) ?? 0) + 1);
            if (r === R.pods) out.estimate = Math.max(out.estimate, (o as Pod).metadata.deletionGracePeriodSeconds ?? 0);
          }
        } catch (e) {
          out.errors.push(`${r.plural}.${r.group}: ${(e as Error).message}`);
        }
      }),
    );
    return out;
  }

  private async deleteResource(r: ResourceInfo, ns: string): Promise<void> {
    if (r.verbs.includes('deletecollection')) {
      await this.ctx.client.deleteCollection(r, ns, { propagationPolicy: 'Background' });
      return;
    }
    const list = await this.ctx.client.list<KubeObject>(r, ns);
    for (const o of list.items) {
      if (o.metadata.deletionTimestamp) continue;
      await this.ctx.client.delete(r, ns, o.metadata.name ?? '', { propagationPolicy: 'Background' }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
  }

  private async updateConditions(ns: Namespace, result: ContentResult): Promise<Namespace> {
    const now = formatTime(this.ctx.clock.now());
    const wanted: Record<string, Omit<Condition, 'type'>> = {};
    for (const [type, ok] of Object.entries(OK)) wanted[type] = { status: 'False', ...ok };
    if (result.errors.length > 0)
      wanted.NamespaceDeletionContentFailure = {
        status: 'True',
        reason: 'ContentDeletionFailed',
        message: `Failed to delete all resource types, ${result.errors.length} remaining: ${result.errors.sort().join(', ')}`,
      };
    if (result.remaining.size > 0)
      wanted.NamespaceContentRemaining = {
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: `Some resources are remaining: ${[...result.remaining].map(([k, n]) => `${k} has ${n} resource instances`).sort().join(', ')}`,
      };
    if (result.finalizers.size > 0)
      wanted.NamespaceFinalizersRemaining = {
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${[...result.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort().join(', ')}`,
      };
    const current = ns.status?.conditions ?? [];
    let changed = ns.status?.phase !== 'Terminating';
    const conditions: Condition[] = Object.entries(wanted).map(([type, c]) => {
      const cur = current.find((x) => x.type === type);
      if (cur && cur.status === c.status && cur.reason === c.reason && cur.message === c.message) return cur;
      changed = true;
      return { type, ...c, lastTransitionTime: cur && cur.status === c.status ? (cur.lastTransitionTime ?? now) : now };
    });
    if (!changed) return ns;
    const next = structuredClone(ns);
    next.status = { ...(next.status ?? {}), phase: 'Terminating', conditions };
    try {
      return await this.ctx.client.updateStatus<Namespace>(R.namespaces, undefined, next);
    } catch (e) {
      // A conflict just means someone else wrote the status; the next pass recomputes it.
      if (isConflict(e)) return ns;
      throw e;
    }
  }

  private async finalize(ns: Namespace): Promise<void> {
    const next = structuredClone(ns);
    next.spec = { ...(next.spec ?? {}), finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== FINALIZER_KUBERNETES) };
    try {
      await this.ctx.client.update<Namespace>(R.namespaces, undefined, next, { subresource: 'finalize' });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

export const namespaceDescriptor: ControllerDescriptor = {
  name: 'namespace-controller',
  serviceAccountName: 'namespace-controller',
  aliases: ['namespace'],
  enabledByDefault: true,
  create: (ctx) => new NamespaceController(ctx),
};
