// The OpenAPI of custom resources (apiextensions-apiserver's openapi builder): per served group version, each
// kind's schema from its version's openAPIV3Schema with apiVersion, kind and metadata (ObjectMeta) added and its
// GVK, a <Kind>List, and a PATCH operation with the fieldValidation parameter — so `kubectl explain crontab.spec`
// walks the CRD's schema and kubectl's --validate=strict asks the server to validate. Definitions are named by
// the reversed group (com.example.stable.v1.CronTab), as Kubernetes names them.
import type { ResourceInfo } from '@kemu/api';
import { asRecord } from '../validation/field.ts';
import { metaSchemas, type Schema } from '../openapi-schemas.ts';
import { definitionOf } from './definitions.ts';
import { versionSchema } from './schema-validator.ts';

const META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.';
const API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const OBJECT_META = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_META = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** com.example.stable.v1.CronTab for stable.example.com/v1 CronTab. */
export function definitionName(r: Pick<ResourceInfo, 'group' | 'version'>, kind: string): string {
  return `${r.group.split('.').reverse().join('.')}.${r.version}.${kind}`;
}

/** The schemas of the custom resources served in one group version (with the meta types they reference). */
export function customResourceSchemas(resources: readonly ResourceInfo[]): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const r of resources) {
    const crd = definitionOf(r);
    const own = crd ? versionSchema(crd, r.version) : undefined;
    const base = structuredClone(own ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    const name = definitionName(r, r.kind);
    schemas[name] = {
      ...base,
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: API_VERSION },
        kind: { type: 'string', description: KIND },
        metadata: { description: OBJECT_META, allOf: [{ $ref: `${META}ObjectMeta` }] },
        ...(asRecord(base.properties) ?? {}),
      },
      'x-kubernetes-group-version-kind': [{ group: r.group, kind: r.kind, version: r.version }],
    };
    schemas[definitionName(r, r.listKind)] = {
      description: `${r.kind}List is a list of ${r.kind}`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: API_VERSION },
        items: { type: 'array', description: `List of ${r.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: `#/components/schemas/${name}` } },
        kind: { type: 'string', description: KIND },
        metadata: { description: LIST_META, allOf: [{ $ref: `${META}ListMeta` }] },
      },
      'x-kubernetes-group-version-kind': [{ group: r.group, kind: r.listKind, version: r.version }],
    };
  }
  return resources.length > 0 ? { ...metaSchemas(), ...schemas } : schemas;
}
