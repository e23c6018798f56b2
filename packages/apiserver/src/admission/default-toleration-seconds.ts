// DefaultTolerationSeconds: pods that do not tolerate the not-ready / unreachable NoExecute taints get
// tolerations for them with tolerationSeconds 300 (kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds), so they are evicted 5 minutes after their node fails.
import type { AdmissionPlugin } from './types.ts';
import { isObj, podCreate } from './types.ts';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready' as const;
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable' as const;
export const DEFAULT_TOLERATION_SECONDS = 300;

export const defaultTolerationSecondsPlugin: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(attrs, ctx) {
    const pod = podCreate(attrs);
    if (!pod) return;
    const tolerations = Array.isArray(pod.spec.tolerations) ? pod.spec.tolerations : [];
    const has = (key: string): boolean =>
      tolerations.some((t: unknown) => isObj(t) && t.key === key && (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute'));
    const add: unknown[] = [];
    const seconds = {
      [TAINT_NOT_READY]: ctx.defaultNotReadyTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS,
      [TAINT_UNREACHABLE]: ctx.defaultUnreachableTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS,
    };
    for (const key of [TAINT_NOT_READY, TAINT_UNREACHABLE])
      if (!has(key)) add.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds[key] });
    if (add.length > 0) pod.spec.tolerations = [...tolerations, ...add];
  },
};
