// The schema of each built-in kind, by group version and kind: what protobuf decoding, JSON field validation,
// strategic merge patch, server-side apply and the published OpenAPI look up (loaded from kinds/*.yaml). Subresource kinds (Scale,
// Eviction, Binding, TokenRequest) and the review kinds are here too; DeleteOptions is read under any group.
import type { ResourceInfo } from '@kemu/api';
import { BUILT_IN, structNamed } from './load.ts';
import type { KindSchema, Struct } from './types.ts';

export type { Field, FieldType, Format, KindSchema, ListType, PatchTags, Scalar, Struct } from './types.ts';
export { structNamed } from './load.ts';

/** Every built-in kind with a schema (kinds/*.yaml). */
export const KINDS: readonly KindSchema[] = BUILT_IN.kinds;

export const DeleteOptions = structNamed('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');

const apiVersionOf = (k: KindSchema) => (k.group === '' ? k.version : `${k.group}/${k.version}`);
const BY_GVK = new Map(KINDS.map((k) => [`${apiVersionOf(k)}/${k.kind}`, k.struct]));

/** The root struct of apiVersion/kind; DeleteOptions under any group version. */
export function schemaOf(apiVersion: string, kind: string): Struct | undefined {
  const direct = BY_GVK.get(`${apiVersion}/${kind}`);
  if (direct) return direct;
  // Typed clients send DeleteOptions under the group version they talk to, or as meta.k8s.io/v1.
  if (kind === 'DeleteOptions') return DeleteOptions;
  return undefined;
}

/** The root struct of a resource's kind. */
export function schemaOfResource(r: ResourceInfo | undefined): Struct | undefined {
  if (!r) return undefined;
  return BY_GVK.get(`${r.group === '' ? r.version : `${r.group}/${r.version}`}/${r.kind}`);
}

