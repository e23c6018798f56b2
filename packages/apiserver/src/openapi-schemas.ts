// OpenAPI v3 `components.schemas` for the built-in kinds, built from their schemas: named structs become
// definitions named as Kubernetes names them (io.k8s.api.core.v1.PodSpec) and referenced with `allOf`, as
// kube-apiserver publishes them; each field carries its description and its list, map and patch semantics
// (x-kubernetes-list-type, -list-map-keys, -map-type, -patch-strategy, -patch-merge-key). `kubectl explain`
// reads these.
import { KINDS, structNamed, type Field, type Scalar, type Struct } from './schema/index.ts';
import { fieldsOf, structOf } from './schema/walk.ts';

export type Schema = Record<string, unknown>;

const SCALARS: Record<Scalar, Schema> = {
  string: { type: 'string' },
  bytes: { type: 'string', format: 'byte' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  bool: { type: 'boolean' },
  double: { type: 'number', format: 'double' },
};

/** The JSON schema of a special type (one value, not its protobuf fields). */
function formatSchema(s: Struct): Schema | undefined {
  switch (s.format) {
    case 'date-time':
    case 'micro-time':
      return { type: 'string', format: 'date-time' };
    case 'quantity':
      return { type: 'string' };
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    case 'fields-v1':
      return { type: 'object' };
    case 'string-list':
      return { type: 'array', items: { type: 'string' } };
    case 'json':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    default:
      return undefined;
  }
}

const withDescription = (s: Schema, description: string): Schema => (description ? { description, ...s } : s);

/** The list, map and patch extensions Kubernetes publishes for a field. */
function extensions(f: Field): Schema {
  const x: Schema = {};
  if (f.repeated) {
    const lt = f.listType ?? { type: 'atomic' };
    x['x-kubernetes-list-type'] = lt.type;
    if (lt.type === 'map') x['x-kubernetes-list-map-keys'] = [...lt.keys];
  }
  if (f.atomicMap) x['x-kubernetes-map-type'] = 'atomic';
  if (f.patch) {
    x['x-kubernetes-patch-strategy'] = f.patch.strategy;
    if (f.patch.mergeKey) x['x-kubernetes-patch-merge-key'] = f.patch.mergeKey;
  }
  return x;
}

class Builder {
  readonly schemas: Record<string, Schema> = {};

  /** A `$ref` to a named struct's definition (added on first use), or the schema of an anonymous one. */
  ref(s: Struct): Schema {
    if (!s.name) return this.structSchema(s);
    if (!(s.name in this.schemas)) {
      this.schemas[s.name] = {}; // reserved first: structs may be recursive
      this.schemas[s.name] = this.structSchema(s);
    }
    return { $ref: `#/components/schemas/${s.name}` };
  }

  structSchema(s: Struct): Schema {
    const special = formatSchema(s);
    if (special) return withDescription(special, s.description);
    const properties: Record<string, Schema> = {};
    for (const [name, f] of [...fieldsOf(s).fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) properties[name] = this.fieldSchema(f);
    return withDescription({ type: 'object', properties, ...(s.atomic ? { 'x-kubernetes-map-type': 'atomic' } : {}) }, s.description);
  }

  private one(f: Field): Schema {
    const t = f.type;
    if (typeof t === 'string') return SCALARS[t];
    if ('struct' in t) return this.ref(t.struct());
    const v = t.map;
    return { type: 'object', additionalProperties: typeof v === 'string' ? SCALARS[v] : this.ref(v.struct()) };
  }

  private fieldSchema(f: Field): Schema {
    const one = this.one(f);
    const x = extensions(f);
    if (f.repeated) return withDescription({ type: 'array', items: one, ...x }, f.description);
    const s = structOf(f);
    // A $ref cannot carry siblings in OpenAPI 3.0: Kubernetes wraps it in allOf to add the description.
    if (s?.name && typeof f.type === 'object' && 'struct' in f.type) return withDescription({ allOf: [one], ...x }, f.description);
    return withDescription({ ...one, ...x }, f.description);
  }
}

const TYPE_META: Record<string, Schema> = {
  apiVersion: { type: 'string', description: 'The versioned schema of this object, such as v1 or apps/v1; the server converts to the latest it serves.' },
  kind: { type: 'string', description: 'The kind of object this is, in CamelCase (Pod, Deployment); the server infers it from the endpoint when absent.' },
};

/** components.schemas for one group version: its kinds plus every named type they reach. */
export function schemasFor(group: string, version: string): { schemas: Record<string, Schema>; refs: Map<string, string> } {
  const b = new Builder();
  const refs = new Map<string, string>();
  for (const k of KINDS) {
    if (k.group !== group || k.version !== version) continue;
    const name = k.struct.name || k.kind;
    const s = b.structSchema(k.struct);
    b.schemas[name] = {
      ...s,
      properties: { ...TYPE_META, ...(s.properties as Record<string, Schema>) },
      'x-kubernetes-group-version-kind': [{ group, kind: k.kind, version }],
    };
    refs.set(k.kind, `#/components/schemas/${name}`);
  }
  return { schemas: b.schemas, refs };
}


/** ListMeta is not among the kinds' structs (lists are written by hand): its fields as Kubernetes publishes them. */
const LIST_META: Schema = {
  description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
  type: 'object',
  properties: {
    continue: { type: 'string', description: 'continue may be set if the user set a limit on the number of items returned; the server has more data available.' },
    remainingItemCount: { type: 'integer', format: 'int64', description: 'The number of subsequent items in the list which are not included in this list response.' },
    resourceVersion: { type: 'string', description: "String that identifies the server's internal version of this object." },
    selfLink: { type: 'string', description: 'Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.' },
  },
};

/** components.schemas of ObjectMeta and ListMeta and the types they reach (for custom resources' documents). */
export function metaSchemas(): Record<string, Schema> {
  const b = new Builder();
  b.ref(structNamed('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
  return { ...b.schemas, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': LIST_META };
}
