// Which PersistentVolume suits a claim (pkg/controller/volume/persistentvolume/index.go, findBestMatchForClaim):
// same class and volume mode, every requested access mode, enough capacity, the claim's selector, and — when
// a node was chosen — the volume's node affinity; the smallest such volume wins.
import { matchesLabelSelector, parseQuantity, STORAGE } from '@kemu/api';
import type { NodeSelectorTerm, PersistentVolume, PersistentVolumeClaim, Quantity } from '@kemu/api';

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
export function claimClass(pvc: PersistentVolumeClaim): string {
  return pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? pvc.spec.storageClassName ?? '';
}

export function volumeClass(pv: PersistentVolume): string {
  return pv.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? pv.spec.storageClassName ?? '';
}

const quantity = (q: Quantity | undefined): number => {
  try {
    return q === undefined ? 0 : parseQuantity(q);
  } catch {
    return 0;
  }
};

export const claimRequest = (pvc: PersistentVolumeClaim): number => quantity(pvc.spec.resources?.requests?.storage);
export const volumeCapacity = (pv: PersistentVolume): number => quantity(pv.spec.capacity?.storage);

/** The claim is the one the volume's claimRef names (a uid in the ref must match too). */
export function claimRefMatches(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata.name || (ref.namespace ?? '') !== (pvc.metadata.namespace ?? '')) return false;
  return !ref.uid || ref.uid === pvc.metadata.uid;
}

function termMatches(term: NodeSelectorTerm, labels: Record<string, string>): boolean {
  const exprs = term.matchExpressions ?? [];
  if (exprs.length === 0 && (term.matchFields ?? []).length === 0) return false;
  return exprs.every((e) => {
    const v = labels[e.key];
    switch (e.operator) {
      case 'In':
        return v !== undefined && (e.values ?? []).includes(v);
      case 'NotIn':
        return v === undefined || !(e.values ?? []).includes(v);
      case 'Exists':
        return v !== undefined;
      case 'DoesNotExist':
        return v === undefined;
      default:
        return false;
    }
  });
}

/** The volume's required node affinity admits a node with these labels (no affinity admits every node). */
export function volumeFitsNode(pv: PersistentVolume, nodeLabels: Record<string, string>): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((t) => termMatches(t, nodeLabels));
}

export interface MatchOptions {
  /** Labels of the node a WaitForFirstConsumer claim's pod goes to (volume.kubernetes.io/selected-node). */
  nodeLabels?: Record<string, string>;
  /** WaitForFirstConsumer without a chosen node: only volumes pre-bound to the claim match. */
  delayBinding?: boolean;
}

export function volumeMatches(pv: PersistentVolume, pvc: PersistentVolumeClaim, opts: MatchOptions = {}): boolean {
  if (pv.metadata.deletionTimestamp) return false;
  const preBound = claimRefMatches(pv, pvc);
  if (pv.spec.claimRef && !preBound) return false;
  if (opts.delayBinding && !preBound) return false;
  if (volumeClass(pv) !== claimClass(pvc)) return false;
  if ((pv.spec.volumeMode ?? 'Filesystem') !== (pvc.spec.volumeMode ?? 'Filesystem')) return false;
  const modes = new Set(pv.spec.accessModes ?? []);
  if (!(pvc.spec.accessModes ?? []).every((m) => modes.has(m))) return false;
  if (volumeCapacity(pv) < claimRequest(pvc)) return false;
  if (pvc.spec.selector && !matchesLabelSelector(pvc.spec.selector, pv.metadata.labels)) return false;
  if (opts.nodeLabels && !volumeFitsNode(pv, opts.nodeLabels)) return false;
  return true;
}

/** The smallest matching volume, a volume pre-bound to the claim first. */
export function findBestMatch(volumes: readonly PersistentVolume[], pvc: PersistentVolumeClaim, opts: MatchOptions = {}): PersistentVolume | undefined {
  const fit = volumes.filter((pv) => volumeMatches(pv, pvc, opts));
  const preBound = fit.find((pv) => claimRefMatches(pv, pvc));
  if (preBound) return preBound;
  fit.sort((a, b) => volumeCapacity(a) - volumeCapacity(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return fit[0];
}

export const isBindCompleted = (pvc: PersistentVolumeClaim): boolean => pvc.metadata.annotations?.[STORAGE.bindCompletedAnnotation] !== undefined;
export const selectedNode = (pvc: PersistentVolumeClaim): string | undefined => pvc.metadata.annotations?.[STORAGE.selectedNodeAnnotation];
