// A stand-in kubelet for unit tests: marks every new pod Running and Ready (soon after it is created), so
// ReplicaSets become available and rollouts can progress.
import { R, formatTime, type Pod } from '@kemu/api';
import type { Clock } from '@kemu/base';
import type { FakeApi } from './fakeapi.ts';

export function fakeKubelet(api: FakeApi, clock: Clock, opts: { ready?: (pod: Pod) => boolean } = {}): () => void {
  return api.subscribe((e) => {
    if (e.resource !== R.pods || e.type !== 'ADDED') return;
    const pod = e.object as Pod;
    if (opts.ready && !opts.ready(pod)) return;
    setImmediate(() => {
      void api
        .get<Pod>(R.pods, pod.metadata.namespace, pod.metadata.name ?? '')
        .then((cur) =>
          api.updateStatus(R.pods, cur.metadata.namespace, {
            ...cur,
            status: {
              phase: 'Running',
              conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()) }],
            },
          }),
        )
        .catch(() => undefined);
    });
  });
}
