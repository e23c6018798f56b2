// Reads the kinds' schemas from kinds/*.yaml into the form of types.ts. Each file describes one API package:
// its structs by Go type name, each field as { name, type, description, list semantics } under its protobuf
// number. A type is a scalar (string, bytes, int32, int64, bool, double), a struct (by name: within the file's
// package, else unique across files, else its full definition name), and may be prefixed `[]` (repeated),
// `*` (Go pointer), `map[string]` or `inline `. Anything the loader does not understand stops the server
// with the file and struct named: a schema mistake must not pass silently.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Field, FieldType, Format, KindSchema, ListType, PatchTags, Scalar, Struct } from './types.ts';

const SCALARS = new Set<string>(['string', 'bytes', 'int32', 'int64', 'bool', 'double']);
const FORMATS = new Set<string>(['date-time', 'micro-time', 'quantity', 'int-or-string', 'fields-v1', 'string-list', 'json']);
const PATCH = new Set<string>(['merge', 'retainKeys', 'merge,retainKeys']);
const STRUCT_KEYS = new Set(['anonymous', 'description', 'format', 'atomic', 'unlisted', 'fields']);
const FIELD_KEYS = new Set(['name', 'type', 'description', 'list', 'keys', 'keyDefaults', 'patch', 'mergeKey', 'atomicMap']);

type Doc = Record<string, unknown>;
const isDoc = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

class SchemaError extends Error {}

interface Entry {
  file: string;
  pkg: string;
  key: string;
  doc: Doc;
  struct: { name: string; description: string; fields: Record<number, Field>; format?: Format; atomic?: boolean; unlisted?: readonly string[] | 'any' };
}

export interface LoadedSchema {
  /** Named structs by definition name. */
  readonly structs: ReadonlyMap<string, Struct>;
  readonly kinds: readonly KindSchema[];
}

/** Loads every `*.yaml` in `dir` (in name order). */
export function loadSchema(dir: string): LoadedSchema {
  const entries: Entry[] = [];
  const named = new Map<string, Entry>();
  const local = new Map<string, Entry>(); // file:key for anonymous structs
  const byShort = new Map<string, Entry[]>();
  const kindRows: { file: string; kind: string; apiVersion: string; pkg: string }[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const doc: unknown = parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const where = (s: string) => `${file}: ${s}`;
    if (!isDoc(doc) || typeof doc.package !== 'string' || !isDoc(doc.structs)) throw new SchemaError(where('wants package and structs'));
    const pkg = doc.package;
    if (doc.kinds !== undefined) {
      if (!isDoc(doc.kinds)) throw new SchemaError(where('kinds is a map of kind to apiVersion'));
      for (const [kind, apiVersion] of Object.entries(doc.kinds)) {
        if (typeof apiVersion !== 'string') throw new SchemaError(where(`kind ${kind} needs its apiVersion`));
        kindRows.push({ file, kind, apiVersion, pkg });
      }
    }
    for (const [key, sdoc] of Object.entries(doc.structs)) {
      if (!isDoc(sdoc)) throw new SchemaError(where(`${key} is not a map`));
      for (const k of Object.keys(sdoc)) if (!STRUCT_KEYS.has(k)) throw new SchemaError(where(`${key}: unknown key ${k}`));
      const anonymous = sdoc.anonymous === true;
      const name = anonymous ? '' : key.includes('.') ? key : `${pkg}.${key}`;
      if (typeof sdoc.description !== 'string') throw new SchemaError(where(`${key} has no description`));
      const e: Entry = { file, pkg, key, doc: sdoc, struct: { name, description: sdoc.description, fields: {} } };
      if (sdoc.format !== undefined) {
        if (typeof sdoc.format !== 'string' || !FORMATS.has(sdoc.format)) throw new SchemaError(where(`${key}: bad format ${String(sdoc.format)}`));
        e.struct.format = sdoc.format as Format;
      }
      if (sdoc.atomic === true) e.struct.atomic = true;
      if (sdoc.unlisted !== undefined) {
        if (sdoc.unlisted !== 'any' && !isStrings(sdoc.unlisted)) throw new SchemaError(where(`${key}: unlisted is a list of names or any`));
        e.struct.unlisted = sdoc.unlisted;
      }
      entries.push(e);
      if (anonymous) local.set(`${file}:${key}`, e);
      else {
        if (named.has(name)) throw new SchemaError(where(`${name} is defined twice`));
        named.set(name, e);
        const short = name.slice(name.lastIndexOf('.') + 1);
        byShort.set(short, [...(byShort.get(short) ?? []), e]);
      }
    }
  }

  const resolve = (e: Entry, ref: string, at: string): Struct => {
    const found = ref.includes('.') ? named.get(ref) : (named.get(`${e.pkg}.${ref}`) ?? local.get(`${e.file}:${ref}`) ?? (byShort.get(ref)?.length === 1 ? byShort.get(ref)?.[0] : undefined));
    if (!found) throw new SchemaError(`${at}: unknown or ambiguous type ${ref}`);
    return found.struct;
  };
  const baseType = (e: Entry, t: string, at: string): FieldType => {
    if (SCALARS.has(t)) return t as Scalar;
    if (t.startsWith('map[string]')) {
      const v = t.slice('map[string]'.length);
      if (SCALARS.has(v)) return { map: v as Scalar };
      const s = resolve(e, v, at);
      return { map: { struct: () => s } };
    }
    const s = resolve(e, t, at);
    return { struct: () => s };
  };

  for (const e of entries) {
    const fdocs = e.doc.fields;
    if (!isDoc(fdocs)) throw new SchemaError(`${e.file}: ${e.key} has no fields`);
    for (const [num, fdoc] of Object.entries(fdocs)) {
      const at = `${e.file}: ${e.key}.${num}`;
      if (!/^\d+$/.test(num) || !isDoc(fdoc) || typeof fdoc.name !== 'string' || typeof fdoc.type !== 'string') throw new SchemaError(`${at}: wants a number, name and type`);
      for (const k of Object.keys(fdoc)) if (!FIELD_KEYS.has(k)) throw new SchemaError(`${at}: unknown key ${k}`);
      let t = fdoc.type;
      const mods: Partial<Record<'repeated' | 'ptr' | 'inline', true>> = {};
      if (t.startsWith('inline ')) [mods.inline, t] = [true, t.slice('inline '.length)];
      else if (t.startsWith('[]')) [mods.repeated, t] = [true, t.slice(2)];
      else if (t.startsWith('*')) [mods.ptr, t] = [true, t.slice(1)];
      const f: { -readonly [K in keyof Field]: Field[K] } = { name: fdoc.name, type: baseType(e, t, at), description: typeof fdoc.description === 'string' ? fdoc.description : '', ...mods };
      if (fdoc.list !== undefined) {
        let lt: ListType;
        if (fdoc.list === 'set' || fdoc.list === 'atomic') lt = { type: fdoc.list };
        else if (fdoc.list === 'map' && isStrings(fdoc.keys) && fdoc.keys.length > 0) lt = isDoc(fdoc.keyDefaults) ? { type: 'map', keys: fdoc.keys, keyDefaults: fdoc.keyDefaults } : { type: 'map', keys: fdoc.keys };
        else throw new SchemaError(`${at}: list is atomic, set, or map with keys`);
        if (!f.repeated) throw new SchemaError(`${at}: list semantics on a field that is not a list`);
        f.listType = lt;
      }
      if (fdoc.patch !== undefined) {
        if (typeof fdoc.patch !== 'string' || !PATCH.has(fdoc.patch)) throw new SchemaError(`${at}: bad patch strategy ${String(fdoc.patch)}`);
        const p: { -readonly [K in keyof PatchTags]: PatchTags[K] } = { strategy: fdoc.patch as PatchTags['strategy'] };
        if (typeof fdoc.mergeKey === 'string') p.mergeKey = fdoc.mergeKey;
        f.patch = p;
      }
      if (fdoc.atomicMap === true) f.atomicMap = true;
      e.struct.fields[Number(num)] = f;
    }
  }

  const kinds = kindRows.map(({ file, kind, apiVersion, pkg }): KindSchema => {
    const e = named.get(`${pkg}.${kind}`);
    if (!e) throw new SchemaError(`${file}: kind ${kind} has no struct ${kind}`);
    const slash = apiVersion.lastIndexOf('/');
    return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind, struct: e.struct };
  });
  return { structs: new Map([...named].map(([n, e]) => [n, e.struct])), kinds };
}

/** The built-in kinds' schema, from this folder's kinds/. */
export const BUILT_IN = loadSchema(path.join(path.dirname(fileURLToPath(import.meta.url)), 'kinds'));

/** A named struct of the built-in schema (io.k8s.api.core.v1.PodSpec). */
export function structNamed(name: string): Struct {
  const s = BUILT_IN.structs.get(name);
  if (!s) throw new Error(`no struct ${name} in the schema`);
  return s;
}
