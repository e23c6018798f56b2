// Requests the emulated data plane delivered to each pod: counted where a connection reaches a pod's emulated
// server, whatever led there (a ClusterIP, a NodePort, a pod IP), per serving container in a RequestWindow that
// the node's stats (usage/node-stats.ts) turn into CPU usage: a busier pod burns more.
import { Counter, type Registry } from 'prom-client';
import { RequestWindow } from '../usage/request-window.ts';

/** What the stats read of the traffic: the requests a container of a pod served. */
export interface TrafficSource {
  window(namespace: string, pod: string, container: string): RequestWindow | undefined;
}

export class PodTraffic implements TrafficSource {
  private readonly counts = new Map<string, number>();
  private readonly windows = new Map<string, Map<string, RequestWindow>>();
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

  /** One connection delivered to `container` of namespace/pod at `at` (ms). */
  add(namespace: string, pod: string, container: string, at: number): void {
    const k = `${namespace}/${pod}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.counter?.inc({ namespace, pod });
    let byContainer = this.windows.get(k);
    if (!byContainer) this.windows.set(k, (byContainer = new Map()));
    let w = byContainer.get(container);
    if (!w) byContainer.set(container, (w = new RequestWindow()));
    w.add(at);
  }

  /** Requests delivered to namespace/pod so far. */
  count(namespace: string, pod: string): number {
    return this.counts.get(`${namespace}/${pod}`) ?? 0;
  }

  window(namespace: string, pod: string, container: string): RequestWindow | undefined {
    return this.windows.get(`${namespace}/${pod}`)?.get(container);
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
    this.windows.delete(`${namespace}/${pod}`);
    this.counter?.remove({ namespace, pod });
  }
}
