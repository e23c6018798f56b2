// Decoding a custom resource from a request body as apiextensions-apiserver's codec does: pruned by the
// version's structural schema (the pruned paths are the unknown fields fieldValidation reports), then defaulted.
// Objects read from storage are defaulted by their version's view (crd/versions.ts).
import type { KindDecoder } from '../registry/json-fields.ts';
import { definitionOfKind } from './definitions.ts';
import { versionSchema } from './schema-validator.ts';
import { applyDefaults, pruneBySchema } from './structural.ts';

function schemaFor(apiVersion: string, kind: string): Record<string, unknown> | undefined {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return undefined;
  const crd = definitionOfKind(apiVersion.slice(0, slash), kind);
  return crd ? versionSchema(crd, apiVersion.slice(slash + 1)) : undefined;
}

export const customResourceDecoder: KindDecoder = (obj, apiVersion, kind) => {
  const schema = schemaFor(apiVersion, kind);
  if (!schema) return undefined;
  const pruned = pruneBySchema(obj, schema);
  applyDefaults(obj, schema);
  return pruned;
};
