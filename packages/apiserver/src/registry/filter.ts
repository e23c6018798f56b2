// labelSelector/fieldSelector as one predicate over objects (lists and watches share it).
import type { KubeObject, ResourceInfo } from '@kemu/api';
import type { Extensions } from '../extensions.ts';

export type ObjectFilter = (obj: KubeObject) => boolean;

/** undefined = everything matches (the common, fast case). */
export function buildFilter(r: ResourceInfo, ext: Extensions, labelSelector: string | null, fieldSelector: string | null): ObjectFilter | undefined {
  const ls = labelSelector?.trim() ? ext.parseLabelSelector(labelSelector) : undefined;
  const fs = fieldSelector?.trim() ? ext.parseFieldSelector(fieldSelector, r) : undefined;
  if (!ls && !fs) return undefined;
  return (obj) => (!ls || ls(obj.metadata.labels ?? {})) && (!fs || fs(ext.fieldsOf(r, obj)));
}
