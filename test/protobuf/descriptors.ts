// Reads the protobuf FileDescriptorProtos that Go binaries built with gogo-protobuf register (gzipped,
// one per generated.proto) straight out of a kubectl binary, so the hand-written schema (packages/apiserver/src/schema) can be
// checked against the exact k8s.io/api version that kubectl speaks.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Reader } from '../../packages/apiserver/src/protobuf/wire.ts';

export interface ProtoField {
  name: string;
  number: number;
  repeated: boolean;
  /** descriptor type: 'string', 'int32', 'int64', 'bool', 'bytes', 'double', 'message', … */
  type: string;
  /** Fully qualified message type without the leading dot, for message fields. */
  typeName: string;
}

const TYPES: Record<number, string> = { 1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 8: 'bool', 9: 'string', 11: 'message', 12: 'bytes', 13: 'uint32', 14: 'enum' };
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff]);

function* fields(buf: Uint8Array): Generator<{ field: number; value: Uint8Array | number }> {
  const r = new Reader(buf);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (wire === 2) yield { field, value: r.bytes() };
    else if (wire === 0) yield { field, value: r.int() };
    else r.skip(wire);
  }
}

const text = (v: Uint8Array | number) => (typeof v === 'number' ? '' : Buffer.from(v).toString('utf8'));

function addMessage(buf: Uint8Array, prefix: string, out: Map<string, Map<number, ProtoField>>): void {
  let name = '';
  const fl = new Map<number, ProtoField>();
  const nested: Uint8Array[] = [];
  for (const { field, value } of fields(buf)) {
    if (field === 1) name = text(value);
    else if (field === 3 && typeof value !== 'number') nested.push(value);
    else if (field === 2 && typeof value !== 'number') {
      const f: ProtoField = { name: '', number: 0, repeated: false, type: '', typeName: '' };
      for (const { field: ff, value: vv } of fields(value)) {
        if (ff === 1) f.name = text(vv);
        else if (ff === 3 && typeof vv === 'number') f.number = vv;
        else if (ff === 4) f.repeated = vv === 3;
        else if (ff === 5 && typeof vv === 'number') f.type = TYPES[vv] ?? String(vv);
        else if (ff === 6) f.typeName = text(vv).replace(/^\./, '');
      }
      fl.set(f.number, f);
    }
  }
  const full = `${prefix}.${name}`;
  out.set(full, fl);
  for (const n of nested) addMessage(n, full, out);
}

/** Every message of the k8s.io generated.proto files registered in the binary, by full name. */
export function loadDescriptors(binary: string): Map<string, Map<number, ProtoField>> {
  const data = readFileSync(binary);
  const out = new Map<string, Map<number, ProtoField>>();
  for (let i = data.indexOf(GZIP_HEADER); i >= 0; i = data.indexOf(GZIP_HEADER, i + 1)) {
    let raw: Buffer;
    try {
      // Descriptors are small; the trailing bytes after the stream are ignored by gunzip with finishFlush.
      raw = gunzipSync(data.subarray(i, i + 400_000), { finishFlush: 2 });
    } catch {
      continue;
    }
    let fileName = '';
    let pkg = '';
    const messages: Uint8Array[] = [];
    try {
      for (const { field, value } of fields(raw)) {
        if (field === 1) fileName = text(value);
        else if (field === 2) pkg = text(value);
        else if (field === 4 && typeof value !== 'number') messages.push(value);
      }
    } catch {
      continue;
    }
    if (!fileName.startsWith('k8s.io/') || !fileName.endsWith('generated.proto')) continue;
    for (const m of messages) addMessage(m, pkg, out);
  }
  return out;
}
