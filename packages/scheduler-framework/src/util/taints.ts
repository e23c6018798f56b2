// v1.Toleration.ToleratesTaint and friends.
import type { Taint, Toleration } from '@kemu/api';

export function toleratesTaint(t: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? 'Equal') {
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tols: readonly Toleration[] | undefined, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (!tols) return false;
  for (const t of tols) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** The first taint (of those passing the filter) no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tols: readonly Toleration[] | undefined,
  include: (t: Taint) => boolean,
): Taint | undefined {
  if (!taints) return undefined;
  for (const taint of taints) {
    if (!include(taint)) continue;
    if (!tolerationsTolerateTaint(tols, taint)) return taint;
  }
  return undefined;
}

export const isNoScheduleOrNoExecute = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
