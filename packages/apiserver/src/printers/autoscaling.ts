// kubectl get hpa (pkg/printers/internalversion/printers.go printHorizontalPodAutoscaler, kubectl 1.32's
// columns): NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, TARGETS as formatHPAMetrics writes them
// ("cpu: 250%/50%", "<unknown>" before a metric is read, "+ N more..." past two). Both versions print the v2 form.
import type { KubeObject } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { hpaV1ToV2 } from '../conversion/hpa.ts';
import { since } from './duration.ts';
import { ageCol, col, list, nameCol, obj, str } from './util.ts';

const UNKNOWN = '<unknown>';
const quantity = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '0');
const percent = (v: unknown): string => `${Number(v)}%`;

/** One metric's "current/target" text; `current` is the status entry of the same index, if any. */
function formatMetric(spec: Record<string, unknown>, current: Record<string, unknown> | undefined): string {
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const field = spec.type === 'External' ? 'external' : 'object';
      const target = obj(obj(spec[field]).target);
      const now = current?.[field] === undefined ? undefined : obj(obj(current[field]).current);
      if (target.averageValue !== undefined) {
        const c = now?.averageValue !== undefined ? quantity(now.averageValue) : UNKNOWN;
        return `${c}/${quantity(target.averageValue)} (avg)`;
      }
      return `${now ? quantity(now.value) : UNKNOWN}/${quantity(target.value)}`;
    }
    case 'Pods': {
      const target = obj(obj(spec.pods).target);
      const now = current?.pods === undefined ? undefined : obj(obj(current.pods).current);
      return `${now ? quantity(now.averageValue) : UNKNOWN}/${quantity(target.averageValue)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const field = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const src = obj(spec[field]);
      const target = obj(src.target);
      const now = current?.[field] === undefined ? undefined : obj(obj(current[field]).current);
      if (target.averageValue !== undefined) return `${str(src.name)}: ${now ? quantity(now.averageValue) : UNKNOWN}/${quantity(target.averageValue)}`;
      const c = now?.averageUtilization !== undefined ? percent(now.averageUtilization) : UNKNOWN;
      const t = target.averageUtilization !== undefined ? percent(target.averageUtilization) : '<auto>';
      return `${str(src.name)}: ${c}/${t}`;
    }
    default:
      return '<unknown type>';
  }
}

export function formatHPAMetrics(specs: Record<string, unknown>[], statuses: Record<string, unknown>[]): string {
  if (specs.length === 0) return '<none>';
  const all = specs.map((s, i) => formatMetric(s, statuses[i]));
  const max = 2;
  if (all.length <= max) return all.join(', ');
  return `${all.slice(0, max).join(', ')} + ${all.length - max} more...`;
}

export const horizontalPodAutoscalerPrinter: TablePrinter = {
  columns: [nameCol, col('Reference'), col('Targets'), col('MinPods'), col('MaxPods', 'integer'), col('Replicas', 'integer'), ageCol],
  cells(o: KubeObject, now) {
    const hpa = o.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(o) : o;
    const spec = obj(hpa.spec);
    const status = obj(hpa.status);
    const ref = obj(spec.scaleTargetRef);
    const min = typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>';
    return [
      o.metadata.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHPAMetrics(list(spec.metrics), list(status.currentMetrics)),
      min,
      typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0,
      typeof status.currentReplicas === 'number' ? status.currentReplicas : 0,
      since(o.metadata.creationTimestamp, now),
    ];
  },
};
