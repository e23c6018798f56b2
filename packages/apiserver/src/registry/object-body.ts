// Checks a request body is an object of the URL's resource and fills apiVersion/kind from the URL
// (client-node omits them); a body of another kind or namespace, or with a value of the wrong JSON type for its
// Go field, is a 400, as Kubernetes' decoder answers.
import { errors, groupVersion, type KubeObject, type ResourceInfo } from '@kemu/api';
import { jsonTypeError } from './json-types.ts';
import { decodePrefix } from './field-validation.ts';

export function asObjectBody(body: unknown, r: ResourceInfo, namespace: string | undefined, kindOverride?: { apiVersion: string; kind: string }): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  }
  const obj = body as Record<string, unknown>;
  const want = kindOverride ?? { apiVersion: groupVersion(r), kind: r.kind };
  if (obj.apiVersion === undefined || obj.apiVersion === null || obj.apiVersion === '') obj.apiVersion = want.apiVersion;
  if (obj.kind === undefined || obj.kind === null || obj.kind === '') obj.kind = want.kind;
  if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') throw errors.badRequest('apiVersion and kind must be strings');
  if (obj.kind !== want.kind) {
    const version = obj.apiVersion.split('/').pop() ?? obj.apiVersion;
    throw errors.badRequest(`${obj.kind} in version "${version}" cannot be handled as a ${want.kind}: the kind of the body does not match the kind of the URL`);
  }
  if (obj.apiVersion !== want.apiVersion) {
    throw errors.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${want.apiVersion})`);
  }
  const typeError = jsonTypeError(obj, obj.apiVersion, obj.kind);
  if (typeError) throw errors.badRequest(`${decodePrefix(obj as KubeObject)}${typeError}`);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  const meta = obj.metadata as Record<string, unknown>;
  // Clients send "creationTimestamp": null and other nulls; drop them rather than store them.
  for (const [k, v] of Object.entries(meta)) if (v === null) delete meta[k];
  if (r.namespaced) {
    if (meta.namespace === undefined || meta.namespace === '') {
      if (namespace !== undefined) meta.namespace = namespace;
    } else if (namespace !== undefined && meta.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  } else {
    delete meta.namespace;
  }
  return obj as KubeObject;
}
