// applyPatch(contentType, original, patch, resource): the four PATCH media types. Server-side apply of
// objects is in managedfields/ (routes/apply.ts); here apply-patch+yaml is only the plain merge the scale
// subresource uses.
import { StatusError } from '@kemu/api';
import type { KubeObject, ResourceInfo } from '@kemu/api';
import { depthBeyond, kemuTooDeep, MAX_NESTING } from '../nesting.ts';
import { mergePatch, isPlainObject } from './merge.ts';
import { jsonPatch } from './json.ts';
import { strategicMergePatch } from './strategic.ts';

export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

function asObject(v: unknown, what: string): KubeObject {
  if (!isPlainObject(v)) throw new StatusError('BadRequest', `${what}: the patched document is not an object`);
  // A JSON patch can nest an object deeper than its body (an add at a deep path, a copy into itself).
  if (depthBeyond(v, MAX_NESTING)) throw kemuTooDeep('the patched object');
  const meta = v.metadata;
  if (meta !== undefined && !isPlainObject(meta)) throw new StatusError('BadRequest', `${what}: metadata must be an object`);
  return { ...v, metadata: isPlainObject(meta) ? meta : {} } as KubeObject;
}

export function applyPatch(contentType: string, original: KubeObject, patch: unknown, resource?: ResourceInfo): KubeObject {
  const mt = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  switch (mt) {
    case 'application/json-patch+json':
      return asObject(jsonPatch(original, patch), 'json patch');
    case 'application/merge-patch+json':
      if (!isPlainObject(patch)) throw new StatusError('BadRequest', 'merge patch body must be a JSON object');
      return asObject(mergePatch(original, patch), 'merge patch');
    case 'application/strategic-merge-patch+json':
    case 'application/apply-patch+yaml':
      return asObject(strategicMergePatch(original, patch, resource), 'strategic merge patch');
    default:
      throw new StatusError(
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${PATCH_MEDIA_TYPES.join(', ')}`,
      );
  }
}

export { mergePatch, jsonPatch, strategicMergePatch };
