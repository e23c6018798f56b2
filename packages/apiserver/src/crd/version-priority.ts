// Kubernetes' version ordering (apimachinery's CompareKubeAwareVersionStrings): kube-like versions (v2, v1,
// v1beta2, v1beta1, v1alpha1) come before others, GA before beta before alpha, then the higher major and minor;
// other strings in reverse lexical order. Discovery lists a CRD's versions in this order (the first is the
// preferred one) and deprecation warnings name the highest served one.

const KUBE = /^v([1-9]\d*)(?:(alpha|beta)([1-9]\d*))?$/;
const TYPE: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/** Positive when a has the higher priority, negative when b has, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = KUBE.exec(a);
  const y = KUBE.exec(b);
  if (!x && !y) return a < b ? 1 : -1;
  if (!x) return -1;
  if (!y) return 1;
  const tx = TYPE[x[2] ?? ''] ?? 0;
  const ty = TYPE[y[2] ?? ''] ?? 0;
  if (tx !== ty) return tx - ty;
  if (x[1] !== y[1]) return Number(x[1]) - Number(y[1]);
  return Number(x[3] ?? 0) - Number(y[3] ?? 0);
}
