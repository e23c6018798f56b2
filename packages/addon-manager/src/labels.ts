// The labels kube-addon-manager reads (cluster/addons/addon-manager/README.md):
// - addonmanager.kubernetes.io/mode=Reconcile: applied every period (drift reverted); pruned once its file is gone.
// - addonmanager.kubernetes.io/mode=EnsureExists: created when missing, never updated nor deleted.
// - kubernetes.io/cluster-service=true (deprecated): reconciled like Reconcile unless the mode is EnsureExists.
// - anything else (no label, mode=Ignore, an unknown mode): left alone.
import type { KubeObject } from '@kemu/api';

export const ADDON_MANAGER_LABEL = 'addonmanager.kubernetes.io/mode';
export const CLUSTER_SERVICE_LABEL = 'kubernetes.io/cluster-service';

export type AddonMode = 'Reconcile' | 'EnsureExists' | 'Ignore';

/** The real script's two `kubectl apply -l` selectors, whose union is what it reconciles (and prunes). */
export const RECONCILE_SELECTORS = [`${ADDON_MANAGER_LABEL}=Reconcile`, `${CLUSTER_SERVICE_LABEL}=true,${ADDON_MANAGER_LABEL}!=EnsureExists`] as const;
export const ENSURE_EXISTS_SELECTOR = `${ADDON_MANAGER_LABEL}=EnsureExists`;

export function addonMode(obj: KubeObject): AddonMode {
  const labels = obj.metadata?.labels ?? {};
  const mode = labels[ADDON_MANAGER_LABEL];
  if (mode === 'EnsureExists') return 'EnsureExists';
  if (mode === 'Reconcile' || labels[CLUSTER_SERVICE_LABEL] === 'true') return 'Reconcile';
  return 'Ignore';
}
