// The autoscaler's writes through the one RestClient: node taints, evictions, the status ConfigMap.
import type { ConfigMap, Node, Pod } from '@kemu/api';
import { R, StatusError } from '@kemu/api';
import { isConflict, isNotFound, type Indexer, type RestClient } from '@kemu/client';
import type { ActuatorApi, EvictionResult } from './scale-down/actuator.ts';
import { TO_BE_DELETED_TAINT } from './scale-down/planner.ts';
import { drainVerdict, type DrainOptions } from './scale-down/drain-rules.ts';
import { goTime } from './status.ts';

/** Read-modify-write of a Node, retried on conflicts. */
async function updateNode(client: RestClient, name: string, change: (n: Node) => boolean): Promise<void> {
  for (let i = 0; ; i++) {
    const node = await client.get<Node>(R.nodes, undefined, name);
    if (!change(node)) return;
    try {
      await client.update(R.nodes, undefined, node);
      return;
    } catch (e) {
      if (!isConflict(e) || i >= 4) throw e;
    }
  }
}

export function restActuatorApi(
  client: RestClient,
  pods: Indexer<Pod>,
  drain: DrainOptions,
  event: ActuatorApi['event'],
): ActuatorApi {
  return {
    addToBeDeletedTaint: (name, value) =>
      updateNode(client, name, (n) => {
        const taints = n.spec?.taints ?? [];
        if (taints.some((t) => t.key === TO_BE_DELETED_TAINT)) return false;
        n.spec = { ...(n.spec ?? {}), taints: [...taints, { key: TO_BE_DELETED_TAINT, value, effect: 'NoSchedule' }] };
        return true;
      }),
    removeToBeDeletedTaint: (name) =>
      updateNode(client, name, (n) => {
        const taints = n.spec?.taints ?? [];
        if (!taints.some((t) => t.key === TO_BE_DELETED_TAINT)) return false;
        n.spec = { ...(n.spec ?? {}), taints: taints.filter((t) => t.key !== TO_BE_DELETED_TAINT) };
        return true;
      }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      }),
    async evict(pod) {
      const { name, namespace } = pod.metadata;
      try {
        await client.createSubresource(R.pods, namespace, name ?? '', 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace }, deleteOptions: {} });
        return { result: 'evicted' satisfies EvictionResult };
      } catch (e) {
        if (isNotFound(e)) return { result: 'gone' };
        if (e instanceof StatusError && e.code === 429) return { result: 'blocked', message: e.message };
        return { result: 'error', message: (e as Error).message };
      }
    },
    podsLeft(nodeName, evicted) {
      const uids = new Set(evicted.map((p) => p.metadata.uid));
      return pods
        .list()
        .filter((p) => p.spec.nodeName === nodeName && uids.has(p.metadata.uid) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && drainVerdict(p, drain).kind !== 'stay');
    },
    event,
  };
}

/** Creates or updates the status ConfigMap; returns it. */
export async function writeStatusConfigMap(client: RestClient, namespace: string, name: string, text: string, now: number): Promise<ConfigMap> {
  const annotations = { 'cluster-autoscaler.kubernetes.io/last-updated': goTime(now) };
  for (let i = 0; ; i++) {
    let cm: ConfigMap;
    try {
      cm = await client.get<ConfigMap>(R.configmaps, namespace, name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      return client.create<ConfigMap>(R.configmaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations }, data: { status: text } });
    }
    cm.data = { ...(cm.data ?? {}), status: text };
    cm.metadata.annotations = { ...(cm.metadata.annotations ?? {}), ...annotations };
    try {
      return await client.update<ConfigMap>(R.configmaps, namespace, cm);
    } catch (e) {
      if (!isConflict(e) || i >= 4) throw e;
    }
  }
}
