// @kemu/addon-manager: kube-addon-manager's semantics as a library. Guarantees:
// - loadManifests reads a directory as `kubectl apply -f DIR --recursive` does, reporting broken files by path;
// - AddonReconciler.cycle creates missing EnsureExists objects (never updates them), server-side applies
//   Reconcile objects (drift reverted), and prunes the allowlisted Reconcile objects it applied whose manifest is
//   gone — only after a pass without errors; everything else is left alone.
export * from './labels.ts';
export * from './manifests.ts';
export * from './prune-allowlist.ts';
export * from './reconcile.ts';
export * from './options.ts';
