// Go's encoding/json type checks for a JSON object decoded into its API struct, read from the kind's schema: the first value of the wrong JSON type gives the error Kubernetes' decoder returns
// (`json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64`), and a
// metav1.Time that is not RFC 3339 fails as time.Parse does. Kinds without a schema get their metadata checked.
// Unknown fields are not judged here (json-fields.ts does); null is always accepted, as Go leaves the zero value.
import { DeleteOptions, schemaOf, structNamed, type Field, type Scalar, type Struct } from '../schema/index.ts';
import { fieldsOf, structOf } from '../schema/walk.ts';
import { base64DecodeError } from '../protobuf/go-base64.ts';
import { rfc3339ParseError } from '../protobuf/go-time.ts';

const GO_SCALARS: Record<Scalar, string> = { string: 'string', bytes: '[]uint8', int32: 'int32', int64: 'int64', bool: 'bool', double: 'float64' };
const INT_RANGE: Partial<Record<Scalar, [number, number]>> = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] };

/** Any kind: only metadata is known (the rest of the body is left to the kind's validation). */
const ObjectMeta = structNamed('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
const METADATA_ONLY: Struct = { name: '', description: '', fields: { 1: { name: 'metadata', type: { struct: () => ObjectMeta }, description: '' } }, unlisted: 'any' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What Go calls the JSON value in an UnmarshalTypeError. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** The struct's Go name as reflect prints it ("v1.PodSpec"); anonymous structs are named after their field. */
function goName(s: Struct, parent: string, field: string): string {
  if (s.name) {
    const parts = s.name.split('.');
    return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1] ?? ''}`;
  }
  return `v1.${parent}${field.charAt(0).toUpperCase()}${field.slice(1)}`;
}

const shortName = (goType: string) => goType.slice(goType.lastIndexOf('.') + 1);

interface At {
  /** The innermost Go struct being decoded (UnmarshalTypeError.Struct). */
  struct: string;
  /** JSON field names from the root, dot-joined (UnmarshalTypeError.Field); list indexes are not part of it. */
  path: string;
}

const mismatch = (what: string, at: At, goType: string) => `json: cannot unmarshal ${what} into Go struct field ${at.struct}.${at.path} of type ${goType}`;

function elemType(f: Field, at: At): string {
  const t = f.type;
  if (typeof t === 'string') return f.name === 'uid' && t === 'string' ? 'types.UID' : GO_SCALARS[t];
  if ('struct' in t) return goName(t.struct(), at.struct, f.name);
  const v = t.map;
  return `map[string]${typeof v === 'string' ? GO_SCALARS[v] : goName(v.struct(), at.struct, f.name)}`;
}

function checkScalar(v: unknown, s: Scalar, at: At, goType: string): string | undefined {
  switch (s) {
    case 'string':
      return typeof v === 'string' ? undefined : mismatch(jsonKind(v), at, goType);
    case 'bool':
      return typeof v === 'boolean' ? undefined : mismatch(jsonKind(v), at, goType);
    case 'double':
      return typeof v === 'number' ? undefined : mismatch(jsonKind(v), at, goType);
    case 'bytes':
      // Padded standard base64 (else Go's decoder error), or (as Go allows for []byte) an array of numbers.
      if (typeof v === 'string') return base64DecodeError(v);
      return Array.isArray(v) ? undefined : mismatch(jsonKind(v), at, goType);
    case 'int32':
    case 'int64': {
      if (typeof v !== 'number') return mismatch(jsonKind(v), at, goType);
      const [lo, hi] = INT_RANGE[s] ?? [0, 0];
      return Number.isInteger(v) && v >= lo && v <= hi ? undefined : mismatch(`number ${String(v)}`, at, goType);
    }
  }
}

/** One value of field f's element type (not the list or map around it). */
function checkValue(v: unknown, f: Field, at: At, goType: string): string | undefined {
  if (v === null) return undefined;
  const t = f.type;
  if (typeof t === 'string') return checkScalar(v, t, at, goType);
  if ('map' in t && typeof t.map === 'string') return checkScalar(v, t.map, at, goType);
  const m = structOf(f);
  if (!m) return undefined;
  if (m.format === 'date-time' || m.format === 'micro-time') {
    // metav1.Time.UnmarshalJSON unmarshals a Go string first, then parses it.
    if (typeof v !== 'string') return mismatch(jsonKind(v), at, 'string');
    return m.format === 'date-time' ? rfc3339ParseError(v) : undefined;
  }
  // Quantity, IntOrString and FieldsV1 have their own parsers; their validation reports them.
  if (m.format) return undefined;
  if (!isObject(v)) return mismatch(jsonKind(v), at, goType);
  return walk(v, m, shortName(goType), at.path);
}

function checkField(v: unknown, f: Field, at: At): string | undefined {
  if (v === null) return undefined;
  const elem = elemType(f, at);
  if (f.repeated) {
    if (!Array.isArray(v)) return mismatch(jsonKind(v), at, `[]${elem}`);
    for (const x of v) {
      const e = checkValue(x, f, at, elem);
      if (e) return e;
    }
    return undefined;
  }
  const t = f.type;
  if (typeof t === 'object' && 'map' in t) {
    if (!isObject(v)) return mismatch(jsonKind(v), at, elem);
    const valueType = elem.slice('map[string]'.length);
    for (const x of Object.values(v)) {
      const e = checkValue(x, f, at, valueType);
      if (e) return e;
    }
    return undefined;
  }
  return checkValue(v, f, at, elem);
}

function walk(obj: Record<string, unknown>, m: Struct, struct: string, path: string): string | undefined {
  const { fields } = fieldsOf(m);
  for (const [k, v] of Object.entries(obj)) {
    const f = fields.get(k);
    if (!f) continue;
    const e = checkField(v, f, { struct, path: path === '' ? k : `${path}.${k}` });
    if (e) return e;
  }
  return undefined;
}

/**
 * The error Go's JSON decoder gives for the first value of `obj` whose JSON type its field does not take, or
 * undefined. `obj` is a body of apiVersion/kind; kinds without a field table have only their metadata checked.
 */
export function jsonTypeError(obj: Record<string, unknown>, apiVersion: string, kind: string): string | undefined {
  const m = kind === 'DeleteOptions' ? undefined : schemaOf(apiVersion, kind);
  return walk(obj, m ?? METADATA_ONLY, kind, '');
}

/** The same for a DeleteOptions body (its decode error carries no kind prefix). */
export function deleteOptionsTypeError(obj: Record<string, unknown>): string | undefined {
  return walk(obj, DeleteOptions, 'DeleteOptions', '');
}
