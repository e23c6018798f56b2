// VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions): a ReadWriteOncePod claim may be used
// by one pod in the whole cluster, and the same GCE PD / AWS EBS / RBD image / iSCSI target may not be mounted
// read-write by two pods on one node. A missing claim is unresolvable (the pod cannot start without it).
import type { Pod, Volume } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonDiskConflict = 'node(s) had no available disk';
export const ErrReasonReadWriteOncePodConflict = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';
const STATE_KEY = 'PreFilter' + Names.VolumeRestrictions;

class RestrictionsState implements StateData {
  constructor(
    /** Names (in the pod's namespace) of the pod's ReadWriteOncePod claims. */
    readonly rwopClaims: ReadonlySet<string>,
    readonly namespace: string,
    /** How many references other pods hold to those claims. */
    public conflictingRefs: number,
  ) {}
  clone(): StateData {
    return new RestrictionsState(this.rwopClaims, this.namespace, this.conflictingRefs);
  }
  refsOf(pod: Pod): number {
    if ((pod.metadata.namespace ?? 'default') !== this.namespace) return 0;
    let n = 0;
    for (const v of pod.spec.volumes ?? []) if (this.rwopClaims.has(claimName(v) ?? '')) n++;
    return n;
  }
}

const claimName = (v: Volume): string | undefined => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName;

interface DiskSource {
  readOnly?: boolean;
  pdName?: string;
  volumeID?: string;
  iqn?: string;
  monitors?: string[];
  pool?: string;
  image?: string;
}
const src = (v: Volume, key: string): DiskSource | undefined => (v[key] && typeof v[key] === 'object' ? (v[key] as DiskSource) : undefined);

/** needsRestrictionsCheck: the in-tree sources with single-writer semantics. */
const needsCheck = (v: Volume): boolean => ['gcePersistentDisk', 'awsElasticBlockStore', 'rbd', 'iscsi'].some((k) => src(v, k) !== undefined);

/** isVolumeConflict: does volume clash with any volume of an existing pod? */
export function isVolumeConflict(volume: Volume, existing: Pod): boolean {
  for (const ev of existing.spec.volumes ?? []) {
    const bothRO = (k: string) => src(volume, k)?.readOnly === true && src(ev, k)?.readOnly === true;
    const gce = src(volume, 'gcePersistentDisk');
    const egce = src(ev, 'gcePersistentDisk');
    if (gce && egce && gce.pdName === egce.pdName && !bothRO('gcePersistentDisk')) return true;
    const ebs = src(volume, 'awsElasticBlockStore');
    const eebs = src(ev, 'awsElasticBlockStore');
    if (ebs && eebs && ebs.volumeID === eebs.volumeID) return true;
    const iscsi = src(volume, 'iscsi');
    const eiscsi = src(ev, 'iscsi');
    if (iscsi && eiscsi && iscsi.iqn === eiscsi.iqn && !bothRO('iscsi')) return true;
    const rbd = src(volume, 'rbd');
    const erbd = src(ev, 'rbd');
    if (rbd && erbd) {
      // Same image: a shared Ceph monitor, the same pool (API default "rbd") and image name.
      const overlap = (rbd.monitors ?? []).some((m) => (erbd.monitors ?? []).includes(m));
      if (overlap && (rbd.pool ?? 'rbd') === (erbd.pool ?? 'rbd') && rbd.image === erbd.image && !bothRO('rbd')) return true;
    }
  }
  return false;
}

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin, PreFilterExtensions {
  readonly name = Names.VolumeRestrictions;

  constructor(private readonly handle: Pick<Handle, 'volumeLister'>) {}

  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    const volumes = pod.pod.spec.volumes ?? [];
    const check = volumes.some(needsCheck);
    const ns = pod.pod.metadata.namespace ?? 'default';
    const rwop = new Set<string>();
    const lister = this.handle.volumeLister;
    for (const v of volumes) {
      const name = claimName(v);
      if (!name || !lister) continue;
      const claim = lister.claim(ns, name);
      if (!claim) return Status.unresolvable(`persistentvolumeclaim "${name}" not found`);
      if (claim.spec.accessModes?.includes('ReadWriteOncePod')) rwop.add(name);
    }
    const s = new RestrictionsState(rwop, ns, 0);
    if (rwop.size > 0) for (const n of nodes) for (const p of n.pods) s.conflictingRefs += s.refsOf(p.pod);
    if (!check && s.conflictingRefs === 0) return Status.skip();
    state.write(STATE_KEY, s);
    return null;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _pod: PodInfo, toAdd: PodInfo): MaybeStatus {
    const s = state.read<RestrictionsState>(STATE_KEY);
    if (s) s.conflictingRefs += s.refsOf(toAdd.pod);
    return null;
  }

  removePod(state: CycleState, _pod: PodInfo, toRemove: PodInfo): MaybeStatus {
    const s = state.read<RestrictionsState>(STATE_KEY);
    if (s) s.conflictingRefs -= s.refsOf(toRemove.pod);
    return null;
  }

  filter(state: CycleState, pod: PodInfo, node: NodeInfo): MaybeStatus {
    for (const v of pod.pod.spec.volumes ?? []) {
      if (!needsCheck(v)) continue;
      for (const existing of node.pods) if (isVolumeConflict(v, existing.pod)) return Status.unschedulable(ErrReasonDiskConflict);
    }
    const s = state.read<RestrictionsState>(STATE_KEY);
    if (s && s.conflictingRefs > 0) return Status.unschedulable(ErrReasonReadWriteOncePodConflict);
    return null;
  }
}
