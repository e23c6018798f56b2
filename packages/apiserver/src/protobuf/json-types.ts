// Go's encoding/json type checks for a JSON object decoded into its API struct, read from the same field tables
// the protobuf decoder uses: the first value of the wrong JSON type gives the error Kubernetes' decoder returns
// (`json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64`), and a
// metav1.Time that is not RFC 3339 fails as time.Parse does. Kinds without a table get their metadata checked.
// Unknown fields are not judged here (json-fields.ts does); null is always accepted, as Go leaves the zero value.
import { base64DecodeError } from './go-base64.ts';
import { rfc3339ParseError } from './go-time.ts';
import { viewOf } from './json-fields.ts';
import { protobufSchema } from './kinds.ts';
import { definitionName } from './openapi-schemas.ts';
import { message, msg, unlisted, type Field, type Message, type Scalar } from './schema.ts';
import * as appsTables from './tables/apps-and-others.ts';
import * as coreEndpointsEvents from './tables/core-endpoints-events.ts';
import * as coreTables from './tables/core.ts';
import * as discoveryEvents from './tables/discovery-events.ts';
import { DeleteOptions, MicroTime, ObjectMeta, Time } from './tables/meta.ts';
import * as metaTables from './tables/meta.ts';
import * as nodeTables from './tables/node.ts';
import * as podTables from './tables/pod-spec.ts';
import * as rbacTables from './tables/rbac.ts';
import * as certificatesTables from './tables/certificates.ts';
import * as reviewTables from './tables/reviews.ts';

const GO_SCALARS: Record<Scalar, string> = { string: 'string', bytes: '[]uint8', int32: 'int32', int64: 'int64', bool: 'bool', double: 'float64' };
const INT_RANGE: Partial<Record<Scalar, [number, number]>> = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] };

/** Any kind: only metadata is known (the rest of the body is left to the kind's validation). */
const METADATA_ONLY = unlisted(message({ 1: msg('metadata', () => ObjectMeta) }), 'any');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What Go calls the JSON value in an UnmarshalTypeError. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Exported tables are named as their Go struct (every API package here is a "v1"). */
const EXPORTED = new Map<unknown, string>();
for (const mod of [metaTables, coreTables, appsTables, podTables, nodeTables, coreEndpointsEvents, discoveryEvents, reviewTables, rbacTables, certificatesTables]) for (const [name, m] of Object.entries(mod)) EXPORTED.set(m, `v1.${name}`);

/** The struct's Go name as reflect prints it ("v1.PodSpec"); anonymous tables are named after their field. */
function goName(m: Message, parent: string, field: string): string {
  const def = definitionName(m);
  if (def) {
    const parts = def.split('.');
    return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1] ?? ''}`;
  }
  return EXPORTED.get(m) ?? `v1.${parent}${field.charAt(0).toUpperCase()}${field.slice(1)}`;
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
  if ('msg' in t) return goName(t.msg(), at.struct, f.name);
  const v = t.map;
  return `map[string]${typeof v === 'string' ? GO_SCALARS[v] : goName(v.msg(), at.struct, f.name)}`;
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
  let m: Message;
  if ('msg' in t) m = t.msg();
  else if (typeof t.map === 'string') return checkScalar(v, t.map, at, goType);
  else m = t.map.msg();
  if (m === Time || m === MicroTime) {
    // metav1.Time.UnmarshalJSON unmarshals a Go string first, then parses it.
    if (typeof v !== 'string') return mismatch(jsonKind(v), at, 'string');
    return m === Time ? rfc3339ParseError(v) : undefined;
  }
  // Quantity, IntOrString and FieldsV1 have their own parsers; their validation reports them.
  if (m.toJSON) return undefined;
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

function walk(obj: Record<string, unknown>, m: Message, struct: string, path: string): string | undefined {
  const { fields } = viewOf(m);
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
  const m = kind === 'DeleteOptions' ? undefined : protobufSchema(apiVersion, kind);
  return walk(obj, m ?? METADATA_ONLY, kind, '');
}

/** The same for a DeleteOptions body (its decode error carries no kind prefix). */
export function deleteOptionsTypeError(obj: Record<string, unknown>): string | undefined {
  return walk(obj, DeleteOptions, 'DeleteOptions', '');
}
