// serviceaccount-controller: every active namespace has a "default" ServiceAccount; one that is deleted is
// created again. Terminating namespaces are left alone (their content is being removed).
import { R, type Namespace, type ServiceAccount } from '@kemu/api';
import { isAlreadyExists, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

export const SERVICE_ACCOUNTS = ['default'] as const;
const WORKERS = 1;

export class ServiceAccountController implements Controller {
  readonly name = 'serviceaccount-controller';
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly accounts: SharedInformer<ServiceAccount>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.namespaces = ctx.informers.informerFor<Namespace>(R.namespaces);
    this.accounts = ctx.informers.informerFor<ServiceAccount>(R.serviceaccounts);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: WORKERS, sync: (k) => this.sync(k) }).waitFor(
      this.namespaces,
      this.accounts,
    );
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.worker.add(ns.metadata.name ?? ''),
      onUpdate: (_old, ns) => this.worker.add(ns.metadata.name ?? ''),
    });
    this.accounts.addEventHandler({
      onDelete: (obj) => {
        const sa = unwrapDeleted(obj);
        if (SERVICE_ACCOUNTS.includes(sa.metadata.name as (typeof SERVICE_ACCOUNTS)[number]) && sa.metadata.namespace)
          this.worker.add(sa.metadata.namespace);
      },
    });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(namespace: string): Promise<void> {
    const ns = this.namespaces.store.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return;
    for (const name of SERVICE_ACCOUNTS) {
      if (this.accounts.store.get(`${namespace}/${name}`)) continue;
      const sa: ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
      try {
        await this.ctx.client.create(R.serviceaccounts, namespace, sa);
      } catch (e) {
        // Someone (or our last attempt) created it already; a namespace being deleted refuses creates.
        if (isAlreadyExists(e)) continue;
        if (isForbiddenTerminating(e)) return;
        throw e;
      }
    }
  }
}

function isForbiddenTerminating(e: unknown): boolean {
  return e instanceof Error && /because it is being terminated/.test(e.message);
}

export const serviceAccountDescriptor: ControllerDescriptor = {
  name: 'serviceaccount-controller',
  serviceAccountName: 'service-account-controller',
  aliases: ['serviceaccount'],
  enabledByDefault: true,
  create: (ctx) => new ServiceAccountController(ctx),
};
