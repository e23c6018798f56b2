// VolumeZone (pkg/scheduler/framework/plugins/volumezone): a pod whose bound volumes carry zone or region labels
// fits only nodes in one of those zones/regions ("a__b" lists several). A node with no topology label at all
// fits; a beta label on the volume also matches the node's GA label. Unbound claims are VolumeBinding's.
import type { PersistentVolume } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonConflict = 'node(s) had no available volume zone';
const STATE_KEY = 'PreFilter' + Names.VolumeZone;

const GA_ZONE = 'topology.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const TOPOLOGY_LABELS = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION];
const toGA = (k: string) => (k === BETA_ZONE ? GA_ZONE : k === BETA_REGION ? GA_REGION : k);

interface Topology {
  key: string;
  values: Set<string>;
}

class ZoneState implements StateData {
  constructor(readonly topologies: Topology[]) {}
  clone(): StateData {
    return this;
  }
}

/** getPVTopologies: the topology labels of a volume, values split on "__" (LabelZonesToSet). */
export function volumeTopologies(pv: PersistentVolume): Topology[] {
  const out: Topology[] = [];
  for (const key of TOPOLOGY_LABELS) {
    const v = pv.metadata.labels?.[key];
    if (v !== undefined) out.push({ key, values: new Set(v.split('__').map((z) => z.trim()).filter((z) => z !== '')) });
  }
  return out;
}

export class VolumeZone implements PreFilterPlugin, FilterPlugin {
  readonly name = Names.VolumeZone;

  constructor(private readonly handle: Pick<Handle, 'volumeLister'>) {}

  preFilter(state: CycleState, pod: PodInfo): MaybeStatus {
    const lister = this.handle.volumeLister;
    const ns = pod.pod.metadata.namespace ?? 'default';
    const topologies: Topology[] = [];
    for (const v of pod.pod.spec.volumes ?? []) {
      const name = (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName;
      if (!name || !lister) continue;
      const volumeName = lister.claim(ns, name)?.spec.volumeName;
      const pv = volumeName ? lister.volume(volumeName) : undefined;
      if (pv) topologies.push(...volumeTopologies(pv));
    }
    if (topologies.length === 0) return Status.skip();
    state.write(STATE_KEY, new ZoneState(topologies));
    return null;
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): MaybeStatus {
    const s = state.read<ZoneState>(STATE_KEY);
    if (!s) return null;
    const labels = node.labels ?? {};
    if (!TOPOLOGY_LABELS.some((k) => labels[k] !== undefined)) return null;
    for (const t of s.topologies) {
      const v = labels[t.key] ?? labels[toGA(t.key)];
      if (v === undefined || !t.values.has(v)) return Status.unresolvable(ErrReasonConflict);
    }
    return null;
  }
}
