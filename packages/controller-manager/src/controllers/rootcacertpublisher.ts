// root-ca-certificate-publisher-controller: every namespace has the ConfigMap kube-root-ca.crt whose `ca.crt` is
// the cluster's CA bundle (--root-ca-file, else the kubeconfig's CA) with Kubernetes' description annotation;
// one that is deleted is created again and one that is edited is put back.
import { R, type ConfigMap, type Namespace } from '@kemu/api';
import { isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { rootCA } from './root-ca.ts';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

export class RootCACertPublisher implements Controller {
  readonly name = 'root-ca-certificate-publisher-controller';
  private readonly configMaps: SharedInformer<ConfigMap>;
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly worker: KeyedWorker;
  private readonly ca: string;

  constructor(private readonly ctx: ControllerContext) {
    this.ca = rootCA(ctx);
    this.configMaps = ctx.informers.informerFor<ConfigMap>(R.configmaps);
    this.namespaces = ctx.informers.informerFor<Namespace>(R.namespaces);
    this.worker = new KeyedWorker(ctx, { name: 'root_ca_cert_publisher', workers: 1, sync: (ns) => this.sync(ns) }).waitFor(this.configMaps, this.namespaces);
    const mine = (cm: ConfigMap) => {
      if (cm.metadata.name === ROOT_CA_CONFIGMAP && cm.metadata.namespace) this.worker.add(cm.metadata.namespace);
    };
    this.configMaps.addEventHandler({ onUpdate: (_o, cm) => mine(cm), onDelete: (obj) => mine(unwrapDeleted(obj)) });
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.worker.add(ns.metadata.name ?? ''),
      onUpdate: (_o, ns) => {
        if (ns.status?.phase === 'Active') this.worker.add(ns.metadata.name ?? '');
      },
    });
  }

  run(): Promise<void> {
    this.ctx.logger.info('Starting root CA cert publisher controller');
    return this.worker.run();
  }

  private async sync(namespace: string): Promise<void> {
    const cm = this.configMaps.store.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    const data = { 'ca.crt': this.ca };
    if (!cm) {
      const fresh: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data,
      };
      try {
        await this.ctx.client.create(R.configmaps, namespace, fresh);
      } catch (e) {
        // No retry when the namespace is gone or terminating.
        if (isNotFound(e) || (e instanceof Error && /because it is being terminated/.test(e.message))) return;
        throw e;
      }
      return;
    }
    const same = JSON.stringify(cm.data ?? {}) === JSON.stringify(data);
    if (same && (cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '') return;
    const next = structuredClone(cm);
    next.data = data;
    next.metadata.annotations = { ...next.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
    await this.ctx.client.update<ConfigMap>(R.configmaps, namespace, next);
  }
}

export const rootCACertPublisherDescriptor: ControllerDescriptor = {
  name: 'root-ca-certificate-publisher-controller',
  aliases: ['root-ca-cert-publisher'],
  serviceAccountName: 'root-ca-cert-publisher',
  enabledByDefault: true,
  create: (ctx) => new RootCACertPublisher(ctx),
};
