// The scale subresource of a custom resource (apiextensions-apiserver's scaleFromCustomResource and its
// update): an autoscaling/v1 Scale whose spec.replicas is read from and written to specReplicasPath,
// status.replicas read from statusReplicasPath and status.selector from labelSelectorPath (0 and "" when absent).
import type { KubeObject, ResourceInfo } from '@kemu/api';
import { asRecord, asString, isRecord } from '../validation/field.ts';
import { versionOf } from './definitions.ts';
import { scaleObject } from '../routes/scale-object.ts';

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** The version's scale paths; undefined for resources that are not custom or have no scale subresource. */
export function customScalePaths(r: ResourceInfo): ScalePaths | undefined {
  const scale = asRecord(asRecord(versionOf(r)?.subresources)?.scale);
  if (!scale) return undefined;
  const labelSelectorPath = asString(scale.labelSelectorPath);
  return { specReplicasPath: asString(scale.specReplicasPath) ?? '', statusReplicasPath: asString(scale.statusReplicasPath) ?? '', ...(labelSelectorPath ? { labelSelectorPath } : {}) };
}

const segments = (path: string): string[] => path.replace(/^\./, '').split('.').filter((s) => s !== '');

function nested(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const s of segments(path)) v = isRecord(v) ? v[s] : undefined;
  return v;
}

export function customResourceToScale(obj: KubeObject, p: ScalePaths): KubeObject {
  const spec = nested(obj, p.specReplicasPath);
  const status = nested(obj, p.statusReplicasPath);
  const selector = p.labelSelectorPath ? nested(obj, p.labelSelectorPath) : undefined;
  return scaleObject(obj, typeof spec === 'number' ? spec : 0, typeof status === 'number' ? status : 0, typeof selector === 'string' ? selector : '');
}

/** Writes replicas at specReplicasPath, creating the objects on the way (unstructured.SetNestedField). */
export function setCustomReplicas(obj: KubeObject, p: ScalePaths, replicas: number): void {
  const segs = segments(p.specReplicasPath);
  let at = obj as unknown as Record<string, unknown>;
  for (const s of segs.slice(0, -1)) {
    if (!isRecord(at[s])) at[s] = {};
    at = at[s] as Record<string, unknown>;
  }
  const last = segs.at(-1);
  if (last) at[last] = replicas;
}
