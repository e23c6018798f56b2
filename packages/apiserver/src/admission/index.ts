// The admission chain: the enabled plugins in Kubernetes' fixed order (plugins.ts). Every plugin's admit
// (mutating) runs first; the server then validates the object, then runs every plugin's validate. The first
// rejection (a StatusError) wins. admit() uses only the built-in PriorityClasses and no namespace lookup;
// admitWith(ctx) gives the plugins store-backed lookups.
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
import { admissionChain } from './plugins.ts';

/** The default chain (no flags): kube-apiserver's default-on plugins that kemu implements. */
export const ADMISSION_PLUGINS: readonly AdmissionPlugin[] = admissionChain().plugins;

export interface Admission {
  /** Mutating admission. */
  admit(attrs: AdmissionAttributes): Promise<void>;
  /** Validating admission (after the object's own validation). */
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export function admissionWith(ctx: AdmissionContext, plugins: readonly AdmissionPlugin[] = ADMISSION_PLUGINS): Admission {
  return {
    async admit(attrs) {
      for (const p of plugins) await p.admit?.(attrs, ctx);
    },
    async validate(attrs) {
      for (const p of plugins) await p.validate?.(attrs, ctx);
    },
  };
}

/** Both phases back to back (no object validation between): for tests and callers without a store. */
export function admitWith(ctx: AdmissionContext, plugins: readonly AdmissionPlugin[] = ADMISSION_PLUGINS) {
  const a = admissionWith(ctx, plugins);
  return async (attrs: AdmissionAttributes): Promise<void> => {
    await a.admit(attrs);
    await a.validate(attrs);
  };
}

export const admit = admitWith({});

export type { AdmissionAttributes, AdmissionContext, AdmissionPlugin, UserInfo } from './types.ts';
export { SYSTEM_PRIORITY_CLASSES } from './priority.ts';
export { admissionChain, validateAdmissionFlags, ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS, IMPLEMENTED_PLUGINS } from './plugins.ts';
export { setMatchConditionEvaluator, type MatchConditionEvaluator } from './webhook/match-conditions.ts';
