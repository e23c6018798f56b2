// Admission plugins in Kubernetes' default order (ServiceAccount, Priority, DefaultTolerationSeconds);
// the server runs them after NamespaceLifecycle and before validation. admit() uses only the built-in
// PriorityClasses; admitWith(ctx) gives the plugins a store-backed lookup.
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
import { serviceAccountPlugin } from './service-account.ts';
import { priorityPlugin } from './priority.ts';
import { defaultTolerationSecondsPlugin } from './default-toleration-seconds.ts';

export const ADMISSION_PLUGINS: readonly AdmissionPlugin[] = [serviceAccountPlugin, priorityPlugin, defaultTolerationSecondsPlugin];

/** Runs every mutating plugin, then every validating one; the first rejection (a StatusError) wins. */
export function admitWith(ctx: AdmissionContext, plugins: readonly AdmissionPlugin[] = ADMISSION_PLUGINS) {
  return async (attrs: AdmissionAttributes): Promise<void> => {
    for (const p of plugins) if (p.mutating) await p.admit(attrs, ctx);
    for (const p of plugins) if (!p.mutating) await p.admit(attrs, ctx);
  };
}

export const admit = admitWith({});

export type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
export { SYSTEM_PRIORITY_CLASSES } from './priority.ts';
