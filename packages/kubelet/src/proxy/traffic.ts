// Requests the emulated data plane delivered to each pod: what a metrics pipeline turns into CPU usage (a
// busier pod burns more). Counted where a connection reaches a pod's emulated server, whatever led there
// (a ClusterIP, a NodePort, a pod IP).
import { Counter, type Registry } from 'prom-client';

export class PodTraffic {
  private readonly counts = new Map<string, number>();
  private readonly counter: Counter<'namespace' | 'pod'> | undefined;

  constructor(registry?: Registry) {
    this.counter = registry
      ? new Counter({
          name: 'kubelet_emulated_pod_requests_total',
          help: 'Connections the emulated Service data plane delivered to a pod (each wget/curl/NodePort request is one).',
          labelNames: ['namespace', 'pod'],
          registers: [registry],
        })
      : undefined;
  }

  add(namespace: string, pod: string): void {
    const k = `${namespace}/${pod}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.counter?.inc({ namespace, pod });
  }

  /** Requests delivered to namespace/pod so far. */
  count(namespace: string, pod: string): number {
    return this.counts.get(`${namespace}/${pod}`) ?? 0;
  }

  /** Forgets the pods `alive` says are gone (their series go too). */
  prune(alive: (namespace: string, pod: string) => boolean): void {
    for (const k of [...this.counts.keys()]) {
      const [namespace = '', pod = ''] = k.split('/');
      if (!alive(namespace, pod)) this.forget(namespace, pod);
    }
  }

  /** Forgets a pod that is gone (its series goes too). */
  forget(namespace: string, pod: string): void {
    this.counts.delete(`${namespace}/${pod}`);
    this.counter?.remove({ namespace, pod });
  }
}
