// The form of the one description of a kind's structure (kinds/*.yaml, read by load.ts): per Go API struct,
// its fields with JSON name, type, protobuf number, pointer-ness, list and map semantics (server-side apply's
// +listType/+listMapKey/+mapType/+structType and strategic merge's patchStrategy/patchMergeKey), and a one-line
// description. Protobuf decoding, JSON field validation, strategic merge patch, server-side apply and the
// published OpenAPI all read these; a CRD's structural schema is meant to compile to the same form.

export type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'double';

/** Types whose JSON is one value rather than an object of their fields (their own Marshal/UnmarshalJSON). */
/** `json`: any JSON value (apiextensions' JSON, JSONSchemaPropsOrArray, -OrBool, -OrStringArray). */
export type Format = 'date-time' | 'micro-time' | 'quantity' | 'int-or-string' | 'fields-v1' | 'string-list' | 'json';

/** How server-side apply treats a list (`+listType`); absent means atomic. */
export type ListType =
  | { readonly type: 'atomic' }
  | { readonly type: 'set' }
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly keyDefaults?: Readonly<Record<string, unknown>> };

/** A list's or struct's strategic-merge-patch tags (`patchStrategy`, `patchMergeKey`); absent means replace. */
export interface PatchTags {
  readonly strategy: 'merge' | 'retainKeys' | 'merge,retainKeys';
  readonly mergeKey?: string;
}

export type StructRef = () => Struct;

export type FieldType = Scalar | { readonly struct: StructRef } | { readonly map: Scalar | { readonly struct: StructRef } };

export interface Field {
  /** The JSON name (for an inline struct, the Go field name; its fields land in the parent). */
  readonly name: string;
  readonly type: FieldType;
  /** One line, written for kemu (shown by `kubectl explain`). */
  readonly description: string;
  readonly repeated?: boolean;
  /** A Go pointer (*int32, *bool, *Struct): present means set, so zero values are kept. */
  readonly ptr?: boolean;
  /** An embedded struct with `json:",inline"`. */
  readonly inline?: boolean;
  /** Repeated fields: server-side apply's list type (absent: atomic). */
  readonly listType?: ListType;
  /** Strategic merge patch tags (absent: the list or struct is replaced). */
  readonly patch?: PatchTags;
  /** Map fields: `+mapType=atomic` (owned and replaced whole by server-side apply). */
  readonly atomicMap?: boolean;
}

export interface Struct {
  /** The OpenAPI definition name (io.k8s.api.core.v1.PodSpec); '' for a struct only ever inlined. */
  readonly name: string;
  readonly description: string;
  /** Keyed by protobuf field number. */
  readonly fields: Readonly<Record<number, Field>>;
  /** A type whose JSON is one value (Time, Quantity, IntOrString…). */
  readonly format?: Format;
  /** `+structType=atomic`: server-side apply owns and replaces it whole. */
  readonly atomic?: boolean;
  /**
   * JSON fields of the Go struct left out here (skipped when decoding protobuf): field validation accepts them
   * unchecked; 'any' = only some fields are listed, accept every name. Structs without it are complete
   * (checked against kubectl's descriptors by test/protobuf/tables-complete.test.ts).
   */
  readonly unlisted?: readonly string[] | 'any';
}

/** A top-level kind: its group version and root struct. */
export interface KindSchema {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly struct: Struct;
}
