// Builders that keep a struct's declaration short enough to read beside the Go type and its generated.proto:
// `str('name', 'What it is.')`, `list('containers', () => Container, '…', byKey('name'))`.
import type { Field, FieldType, Format, ListType, PatchTags, Scalar, Struct, StructRef } from './types.ts';

type Opts = Pick<Field, 'repeated' | 'ptr' | 'inline' | 'listType' | 'patch' | 'atomicMap'>;

const field = (name: string, type: FieldType, description: string, opts: Opts = {}): Field => ({ name, type, description, ...opts });

export const str = (name: string, description = '', opts?: Opts): Field => field(name, 'string', description, opts);
export const strPtr = (name: string, description = ''): Field => field(name, 'string', description, { ptr: true });
export const strs = (name: string, description = '', opts?: Opts): Field => field(name, 'string', description, { repeated: true, ...opts });
export const bytes = (name: string, description = ''): Field => field(name, 'bytes', description);
export const i32 = (name: string, description = '', opts?: Opts): Field => field(name, 'int32', description, opts);
export const i32Ptr = (name: string, description = ''): Field => field(name, 'int32', description, { ptr: true });
export const i64 = (name: string, description = '', opts?: Opts): Field => field(name, 'int64', description, opts);
export const i64Ptr = (name: string, description = ''): Field => field(name, 'int64', description, { ptr: true });
export const double = (name: string, description = '', opts?: Opts): Field => field(name, 'double', description, opts);
export const bool = (name: string, description = ''): Field => field(name, 'bool', description);
export const boolPtr = (name: string, description = ''): Field => field(name, 'bool', description, { ptr: true });
export const msg = (name: string, ref: StructRef, description = '', opts?: Opts): Field => field(name, { struct: ref }, description, opts);
export const list = (name: string, ref: StructRef, description = '', opts?: Opts): Field => field(name, { struct: ref }, description, { repeated: true, ...opts });
export const inline = (name: string, ref: StructRef): Field => field(name, { struct: ref }, '', { inline: true });
export const mapOf = (name: string, value: Scalar | StructRef, description = '', opts?: Opts): Field =>
  field(name, { map: typeof value === 'function' ? { struct: value } : value }, description, opts);

/** A list keyed by these fields for apply (+listType=map) that strategic merge also merges on the first. */
export const byKey = (key: string, ...more: string[]): Opts => ({ listType: { type: 'map', keys: [key, ...more] }, patch: { strategy: 'merge', mergeKey: key } });
/** A list keyed for apply only (+listType=map without a patch merge key: strategic merge replaces it). */
export const mapList = (keys: readonly string[], keyDefaults?: Record<string, unknown>): Opts => ({ listType: keyDefaults ? { type: 'map', keys, keyDefaults } : { type: 'map', keys } });
/** A list of unique scalars (+listType=set); `merge` adds strategic merge's primitive merge. */
export const setList = (merge = false): Opts => ({ listType: { type: 'set' }, ...(merge ? { patch: { strategy: 'merge' } } : {}) });
export const ATOMIC_LIST: ListType = { type: 'atomic' };
/** Adds options (e.g. retainKeys, key defaults) to a list's. */
export const withOpts = (base: Opts, more: Opts): Opts => ({ ...base, ...more });
export const retainKeys = (base: Opts): Opts => ({ ...base, patch: { ...(base.patch as PatchTags), strategy: 'merge,retainKeys' } });

export interface StructOpts {
  readonly atomic?: boolean;
  readonly unlisted?: readonly string[] | 'any';
  readonly format?: Format;
}

/** A Go struct: its definition name, what it is, and its fields by protobuf number. */
export const struct = (name: string, description: string, fields: Record<number, Field>, opts: StructOpts = {}): Struct => ({ name, description, fields, ...opts });
