// VolumeBinding (pkg/scheduler/framework/plugins/volumebinding): a pod's PersistentVolumeClaims must exist and
// not be terminating; an unbound claim of an Immediate class keeps the pod out ("pod has unbound immediate
// PersistentVolumeClaims"); a bound claim's volume must be reachable from the node; a WaitForFirstConsumer
// claim needs a matching volume on the node or a class that provisions. PreBind pre-binds a static volume
// or names the node on the claim for its provisioner, then waits until every claim is bound.
import { tryParseQuantity, type PersistentVolume, type PersistentVolumeClaim } from '@kemu/api';
import type { CycleState, StateData } from '../framework/cycle-state.ts';
import type { FilterPlugin, Handle, PreBindPlugin, PreFilterPlugin } from '../framework/interface.ts';
import type { NodeInfo } from '../framework/node-info.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { compileNodeSelectorTerms } from '../util/selector.ts';
import { Names } from './names.ts';

export const ErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
export const ErrReasonNodeConflict = 'node(s) had volume node affinity conflict';
export const ErrUnboundImmediate = 'pod has unbound immediate PersistentVolumeClaims';
/** kube-scheduler's bindTimeoutSeconds default. */
export const BIND_TIMEOUT_MS = 600_000;
const NO_PROVISIONER = 'kubernetes.io/no-provisioner';
const STATE_KEY = 'PreFilter' + Names.VolumeBinding;

class VolumeState implements StateData {
  constructor(
    readonly bound: PersistentVolume[],
    readonly delayed: PersistentVolumeClaim[],
  ) {}
  clone(): StateData {
    return this;
  }
}

const claimClass = (c: PersistentVolumeClaim): string => c.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? c.spec.storageClassName ?? '';
const quantity = (q: unknown): number => tryParseQuantity(q) ?? 0;

function volumeFitsNode(pv: PersistentVolume, node: NodeInfo): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms;
  return !terms || compileNodeSelectorTerms(terms)(node);
}

/** A free volume of the claim's class, modes and size (or pre-bound to it) reachable from the node. */
function staticMatch(volumes: readonly PersistentVolume[], claim: PersistentVolumeClaim, node: NodeInfo): PersistentVolume | undefined {
  const want = quantity(claim.spec.resources?.requests?.storage);
  const fit = volumes.filter((pv) => {
    const ref = pv.spec.claimRef;
    if (pv.metadata.deletionTimestamp) return false;
    if (ref && !(ref.name === claim.metadata.name && ref.namespace === claim.metadata.namespace)) return false;
    if ((pv.spec.storageClassName ?? '') !== claimClass(claim)) return false;
    const modes = new Set(pv.spec.accessModes ?? []);
    if (!(claim.spec.accessModes ?? []).every((m) => modes.has(m))) return false;
    return quantity(pv.spec.capacity?.storage) >= want && volumeFitsNode(pv, node);
  });
  fit.sort((a, b) => quantity(a.spec.capacity?.storage) - quantity(b.spec.capacity?.storage));
  return fit[0];
}

export class VolumeBinding implements PreFilterPlugin, FilterPlugin, PreBindPlugin {
  readonly name = Names.VolumeBinding;

  constructor(private readonly handle: Pick<Handle, 'volumeLister' | 'clock' | 'snapshot'>) {}

  preFilter(state: CycleState, pod: PodInfo): MaybeStatus {
    const lister = this.handle.volumeLister;
    const names = (pod.pod.spec.volumes ?? []).map((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName).filter((n): n is string => !!n);
    if (!lister || names.length === 0) return Status.skip();
    const ns = pod.pod.metadata.namespace ?? 'default';
    const bound: PersistentVolume[] = [];
    const delayed: PersistentVolumeClaim[] = [];
    let immediate = false;
    for (const name of names) {
      const claim = lister.claim(ns, name);
      if (!claim) return Status.unresolvable(`persistentvolumeclaim "${name}" not found`);
      if (claim.metadata.deletionTimestamp) return Status.unresolvable(`persistentvolumeclaim "${name}" is being deleted`);
      const volumeName = claim.spec.volumeName;
      if (volumeName) {
        const pv = lister.volume(volumeName);
        if (!pv) return Status.unresolvable(`pvc(s) bound to non-existent pv(s)`);
        bound.push(pv);
        continue;
      }
      const cls = lister.storageClass(claimClass(claim));
      if (cls?.volumeBindingMode === 'WaitForFirstConsumer') delayed.push(claim);
      else immediate = true;
    }
    if (immediate) return Status.unresolvable(ErrUnboundImmediate);
    state.write(STATE_KEY, new VolumeState(bound, delayed));
    return null;
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): MaybeStatus {
    const s = state.read<VolumeState>(STATE_KEY);
    const lister = this.handle.volumeLister;
    if (!s || !lister) return null;
    if (s.bound.some((pv) => !volumeFitsNode(pv, node))) return Status.unresolvable(ErrReasonNodeConflict);
    for (const claim of s.delayed) {
      if (staticMatch(lister.volumes(), claim, node)) continue;
      const cls = lister.storageClass(claimClass(claim));
      if (!cls || cls.provisioner === NO_PROVISIONER) return Status.unschedulable(ErrReasonBindConflict);
    }
    return null;
  }

  async preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    const s = state.read<VolumeState>(STATE_KEY);
    const lister = this.handle.volumeLister;
    if (!s || !lister || s.delayed.length === 0) return null;
    const node = this.handle.snapshot().get(nodeName);
    if (!node) return Status.error(new Error(`node "${nodeName}" not found`));
    try {
      for (const claim of s.delayed) {
        const pv = staticMatch(lister.volumes(), claim, node);
        if (pv) await lister.preBind(pv, claim);
        else await lister.selectNode(claim, nodeName);
      }
    } catch (e) {
      return Status.error(e);
    }
    // The binder (and the provisioner) finish the bind; the pod is bound to the node only once they have.
    const deadline = this.handle.clock.now() + BIND_TIMEOUT_MS;
    const ns = pod.pod.metadata.namespace ?? 'default';
    for (;;) {
      const pending = s.delayed.filter((c) => !lister.claim(ns, c.metadata.name ?? '')?.spec.volumeName);
      if (pending.length === 0) return null;
      if (this.handle.clock.now() > deadline) return Status.error(new Error('binding volumes: timed out waiting for the condition'));
      await this.handle.clock.sleep(100);
    }
  }
}
