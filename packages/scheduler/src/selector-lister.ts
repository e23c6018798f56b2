// The selectors of the Services and ReplicaSets that select a pod (helper.DefaultSelector), used by
// PodTopologySpread's default constraints.
import type { KubeObject, LabelSelector, Pod, Service } from '@kemu/api';
import type { Indexer } from '@kemu/client';
import { compileLabelSelector, compileSet } from '@kemu/scheduler-framework';
import type { SelectorLister } from '@kemu/scheduler-framework';

interface ReplicaSetLike extends KubeObject {
  spec?: { selector?: LabelSelector };
}

export function workloadSelectorLister(services: Indexer<Service> | undefined, replicaSets: Indexer<ReplicaSetLike> | undefined): SelectorLister {
  return {
    selectorsFor(pod: Pod): LabelSelector[] {
      const ns = pod.metadata.namespace ?? 'default';
      const labels = pod.metadata.labels;
      const out: LabelSelector[] = [];
      for (const s of services?.byIndex('namespace', ns) ?? []) {
        const sel = s.spec?.selector;
        if (sel && Object.keys(sel).length > 0 && compileSet(sel)(labels)) out.push({ matchLabels: sel });
      }
      for (const rs of replicaSets?.byIndex('namespace', ns) ?? []) {
        const sel = rs.spec?.selector;
        if (sel && compileLabelSelector(sel)(labels)) out.push(sel);
      }
      return out;
    },
  };
}
