// The shape of a field-number table: one Message per Go API struct, keyed by protobuf field number, with
// the JSON name and what Go's JSON encoding would do with it. Builders keep the tables short to read
// next to k8s.io/api's generated.proto.

export type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'double';

export interface Message {
  readonly fields: Readonly<Record<number, Field>>;
  /** Special types (Quantity, Time, IntOrString…) turn their decoded fields into one JSON value; undefined omits it. */
  readonly toJSON?: (decoded: Record<string, unknown>) => unknown;
  /**
   * JSON fields of the Go struct the table leaves out (skipped when decoding): field validation accepts them
   * unchecked; 'any' = the table lists only some fields, accept every name. Tables without it are complete
   * (checked against kubectl's descriptors by test/protobuf/tables-complete.test.ts).
   */
  readonly unlisted?: readonly string[] | 'any';
}

export type MessageRef = () => Message;

export type FieldType = Scalar | { msg: MessageRef } | { map: Scalar | { msg: MessageRef } };

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  readonly repeated?: boolean;
  /** A Go pointer (*int32, *bool, *string): present on the wire means set, so zero values are kept. */
  readonly ptr?: boolean;
  /** An embedded struct with `json:",inline"`: its fields land in the parent object. */
  readonly inline?: boolean;
}

type Opts = Pick<Field, 'repeated' | 'ptr' | 'inline'>;

const field = (name: string, type: FieldType, opts: Opts = {}): Field => ({ name, type, ...opts });

export const str = (name: string, opts?: Opts): Field => field(name, 'string', opts);
export const strPtr = (name: string): Field => field(name, 'string', { ptr: true });
export const strs = (name: string): Field => field(name, 'string', { repeated: true });
export const bytes = (name: string): Field => field(name, 'bytes');
export const i32 = (name: string, opts?: Opts): Field => field(name, 'int32', opts);
export const i32Ptr = (name: string): Field => field(name, 'int32', { ptr: true });
export const i64 = (name: string, opts?: Opts): Field => field(name, 'int64', opts);
export const i64Ptr = (name: string): Field => field(name, 'int64', { ptr: true });
export const bool = (name: string): Field => field(name, 'bool');
export const boolPtr = (name: string): Field => field(name, 'bool', { ptr: true });
export const msg = (name: string, ref: MessageRef, opts?: Opts): Field => field(name, { msg: ref }, opts);
export const list = (name: string, ref: MessageRef): Field => field(name, { msg: ref }, { repeated: true });
export const inline = (name: string, ref: MessageRef): Field => field(name, { msg: ref }, { inline: true });
export const mapOf = (name: string, value: Scalar | MessageRef): Field =>
  field(name, { map: typeof value === 'function' ? { msg: value } : value });

export const message = (fields: Record<number, Field>, toJSON?: Message['toJSON']): Message =>
  toJSON ? { fields, toJSON } : { fields };

/** Names the struct's JSON fields a table leaves out (see Message.unlisted). */
export const unlisted = (m: Message, names: readonly string[] | 'any'): Message => ({ ...m, unlisted: names });
