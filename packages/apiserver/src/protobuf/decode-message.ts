// Schema-driven decoding of one protobuf message into the JSON shape Go's encoding/json would produce
// for the same Go struct: zero scalars of non-pointer fields are omitted (gogo-protobuf emits every
// scalar, even empty ones), pointer fields keep whatever was sent, messages present on the wire are kept
// (an empty `emptyDir: {}` matters), maps arrive as repeated {1 key, 2 value} entries, and bytes become
// base64. Unknown field numbers are skipped.
import type { Field, Scalar, Struct } from '../schema/index.ts';
import { formatToJSON } from './formats.ts';
import { Reader, WIRE, WireError } from './wire.ts';

export function decodeMessage(schema: Struct, buf: Uint8Array, start = 0, end = buf.length): unknown {
  const obj = decodeFields(schema, new Reader(buf, start, end));
  return schema.format ? formatToJSON(schema.format, obj) : obj;
}

function decodeFields(schema: Struct, r: Reader, into: Record<string, unknown> = {}): Record<string, unknown> {
  while (!r.done()) {
    const { field: num, wire } = r.tag();
    const f = schema.fields[num];
    if (!f) {
      r.skip(wire);
      continue;
    }
    decodeField(f, wire, r, into);
  }
  return into;
}

function decodeField(f: Field, wire: number, r: Reader, into: Record<string, unknown>): void {
  const t = f.type;
  if (typeof t === 'string') {
    // Repeated varints may arrive packed (one length-delimited run) or one tag per element.
    if (f.repeated && wire === WIRE.bytes && t !== 'string' && t !== 'bytes') {
      const [s, e] = r.bytesRange();
      const packed = new Reader(r.buf, s, e);
      while (!packed.done()) push(into, f.name, readScalar(t, expectedWire(t), packed));
      return;
    }
    const v = readScalar(t, wire, r);
    if (f.repeated) push(into, f.name, v);
    else if (f.ptr || !isZero(v)) into[f.name] = v;
    return;
  }
  expectWire(wire, WIRE.bytes, f.name);
  const [s, e] = r.bytesRange();
  if ('struct' in t) {
    const schema = t.struct();
    if (f.inline) {
      decodeFields(schema, new Reader(r.buf, s, e), into);
      return;
    }
    if (!f.repeated && !schema.format && isRecord(into[f.name])) {
      // A non-repeated message sent twice merges, as protobuf specifies.
      decodeFields(schema, new Reader(r.buf, s, e), into[f.name] as Record<string, unknown>);
      return;
    }
    const v = decodeMessage(schema, r.buf, s, e);
    if (v === undefined) return;
    if (f.repeated) push(into, f.name, v);
    else into[f.name] = v;
    return;
  }
  const [key, value] = decodeMapEntry(t.map, new Reader(r.buf, s, e));
  let m = into[f.name];
  if (!isRecord(m)) into[f.name] = m = {};
  (m as Record<string, unknown>)[key] = value;
}

function decodeMapEntry(valueType: Scalar | { struct: () => Struct }, r: Reader): [string, unknown] {
  let key = '';
  let value: unknown;
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1) {
      expectWire(wire, WIRE.bytes, 'map key');
      key = r.string();
    } else if (field === 2) {
      if (typeof valueType === 'string') value = readScalar(valueType, wire, r);
      else {
        expectWire(wire, WIRE.bytes, 'map value');
        const [s, e] = r.bytesRange();
        value = decodeMessage(valueType.struct(), r.buf, s, e);
      }
    } else r.skip(wire);
  }
  // An absent value is the zero value of its type.
  if (value === undefined) value = typeof valueType === 'string' ? zeroOf(valueType) : decodeMessage(valueType.struct(), new Uint8Array(0));
  return [key, value];
}

function readScalar(t: Scalar, wire: number, r: Reader): unknown {
  expectWire(wire, expectedWire(t), t);
  switch (t) {
    case 'string':
      return r.string();
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    case 'int32':
    case 'int64':
      return r.int();
    case 'bool':
      return r.varintBig() !== 0n;
    case 'double':
      return r.fixed64().getFloat64(0, true);
  }
}

function expectedWire(t: Scalar): number {
  if (t === 'string' || t === 'bytes') return WIRE.bytes;
  if (t === 'double') return WIRE.fixed64;
  return WIRE.varint;
}

function expectWire(got: number, want: number, what: string): void {
  if (got !== want) throw new WireError(`field ${what} has wire type ${got}, expected ${want}`);
}

function zeroOf(t: Scalar): unknown {
  if (t === 'string' || t === 'bytes') return '';
  if (t === 'bool') return false;
  return 0;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function push(into: Record<string, unknown>, name: string, v: unknown): void {
  const cur = into[name];
  if (Array.isArray(cur)) cur.push(v);
  else into[name] = [v];
}
