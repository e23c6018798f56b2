// NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits, CSILimits): a node fits only if the
// unique CSI volumes of its pods plus the pod's new ones stay within each driver's attach limit, read from
// the CSINode's spec.drivers[].allocatable.count (or the node's attachable-volumes-csi-<driver> allocatable).
// A volume is driver/volumeHandle; an unbound claim counts once under its class's provisioner.
import type { Node, PersistentVolumeClaim, Pod } from '@kemu/api';
import type { CycleState } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreFilterPlugin, VolumeLister } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export const ErrReasonMaxVolumeCountExceeded = 'node(s) exceed max volume count';
const ATTACH_LIMIT_PREFIX = 'attachable-volumes-csi-';

/** The claim a pod volume refers to: its persistentVolumeClaim, or the <pod>-<volume> claim of an ephemeral one. */
function claimNameOf(pod: Pod, v: Record<string, unknown>): string | undefined {
  const pvc = v.persistentVolumeClaim as { claimName?: string } | undefined;
  if (pvc?.claimName) return pvc.claimName;
  if (v.ephemeral) return `${pod.metadata.name ?? ''}-${String(v.name)}`;
  return undefined;
}

/** getCSIDriverInfo: driver and handle of a bound claim's CSI volume, or the class's provisioner for an unbound one. */
function driverInfo(lister: VolumeLister, claim: PersistentVolumeClaim): [string, string] | undefined {
  const pvName = claim.spec.volumeName;
  const pv = pvName ? lister.volume(pvName) : undefined;
  if (pv) {
    const csi = pv.spec.csi as { driver?: string; volumeHandle?: string } | undefined;
    return csi?.driver && csi.volumeHandle ? [csi.driver, csi.volumeHandle] : undefined;
  }
  const className = claim.spec.storageClassName;
  const sc = className ? lister.storageClass(className) : undefined;
  // A random prefix in Kubernetes; anything that cannot collide with a real handle will do.
  return sc?.provisioner ? [sc.provisioner, `unbound-${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`] : undefined;
}

/** Adds the pod's CSI volumes to out (unique name → driver). A missing claim of the new pod is an error. */
function attachableVolumes(lister: VolumeLister, pod: Pod, newPod: boolean, out: Map<string, string>): string | undefined {
  const ns = pod.metadata.namespace ?? 'default';
  for (const v of pod.spec.volumes ?? []) {
    const name = claimNameOf(pod, v);
    if (!name) continue;
    const claim = lister.claim(ns, name);
    if (!claim) {
      if (newPod) return `looking up PVC ${ns}/${name}: persistentvolumeclaim "${name}" not found`;
      continue;
    }
    const info = driverInfo(lister, claim);
    if (info) out.set(`${info[0]}/${info[1]}`, info[0]);
  }
  return undefined;
}

/** getVolumeLimits: per driver, the CSINode's allocatable count over the node's attachable-volumes-csi-* allocatable. */
function volumeLimits(node: Node | undefined, lister: VolumeLister, nodeName: string): Map<string, number> {
  const limits = new Map<string, number>();
  for (const [k, v] of Object.entries(node?.status?.allocatable ?? {}))
    if (k.startsWith(ATTACH_LIMIT_PREFIX)) limits.set(k.slice(ATTACH_LIMIT_PREFIX.length), Number(v));
  for (const d of lister.csiNode?.(nodeName)?.spec.drivers ?? [])
    if (typeof d.allocatable?.count === 'number') limits.set(d.name, d.allocatable.count);
  return limits;
}

export class NodeVolumeLimits implements PreFilterPlugin, FilterPlugin {
  readonly name = Names.NodeVolumeLimits;

  constructor(private readonly handle: Pick<Handle, 'volumeLister'>) {}

  /** Pods without claims or ephemeral volumes are none of this plugin's business. */
  preFilter(_state: CycleState, pod: PodInfo): MaybeStatus {
    const uses = (pod.pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim || v.ephemeral);
    return uses && this.handle.volumeLister ? null : Status.skip();
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): MaybeStatus {
    const lister = this.handle.volumeLister;
    if (!lister) return null;
    const fresh = new Map<string, string>();
    const err = attachableVolumes(lister, pod.pod, true, fresh);
    if (err) return Status.unresolvable(err);
    if (fresh.size === 0) return null;
    const limits = volumeLimits(node.node, lister, node.name);
    if (limits.size === 0) return null;
    const attached = new Map<string, string>();
    for (const p of node.pods) attachableVolumes(lister, p.pod, false, attached);
    const attachedCount = new Map<string, number>();
    for (const [unique, driver] of attached) {
      fresh.delete(unique); // a volume already attached for another pod costs nothing more
      attachedCount.set(driver, (attachedCount.get(driver) ?? 0) + 1);
    }
    const newCount = new Map<string, number>();
    for (const driver of fresh.values()) newCount.set(driver, (newCount.get(driver) ?? 0) + 1);
    for (const [driver, count] of newCount) {
      const max = limits.get(driver);
      if (max !== undefined && (attachedCount.get(driver) ?? 0) + count > max) return Status.unschedulable(ErrReasonMaxVolumeCountExceeded);
    }
    return null;
  }
}
