// SchedulerClient over the REST client: pods/binding, victim deletes, and pod status patches.
import type { Binding, Pod } from '@kemu/api';
import { R } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import type { SchedulerClient } from '@kemu/scheduler-framework';

export function restSchedulerClient(client: RestClient): SchedulerClient {
  return {
    async bind(namespace, name, uid, nodeName) {
      const body: Binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace, uid },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      };
      await client.createSubresource(R.pods, namespace, name, 'binding', body);
    },
    async deletePod(namespace, name, uid) {
      await client.delete(R.pods, namespace, name, { preconditions: { uid } });
    },
    async patchPodStatus(pod: Pod, status: Record<string, unknown>) {
      await client.patch(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', { status }, 'merge', { subresource: 'status' });
    },
  };
}
