// A tiny protobuf encoder for tests: builds wire bytes field by field, the way gogo-protobuf would.
type Part = Uint8Array;

export function varint(n: number | bigint): Uint8Array {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Uint8Array.from(out);
}

export const cat = (...parts: Part[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));
export const tag = (field: number, wire: number): Uint8Array => varint(field * 8 + wire);
export const int = (field: number, n: number | bigint): Uint8Array => cat(tag(field, 0), varint(n));
export const bool = (field: number, b: boolean): Uint8Array => int(field, b ? 1 : 0);
export const bytes = (field: number, b: Uint8Array): Uint8Array => cat(tag(field, 2), varint(b.length), b);
export const str = (field: number, s: string): Uint8Array => bytes(field, Buffer.from(s, 'utf8'));
export const msg = (field: number, ...parts: Part[]): Uint8Array => bytes(field, cat(...parts));
/** A map<string, string> entry {1 key, 2 value}. */
export const entry = (field: number, key: string, value: string | Uint8Array): Uint8Array =>
  msg(field, str(1, key), typeof value === 'string' ? str(2, value) : bytes(2, value));

/** "k8s\0" + runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array, contentEncoding = ''): Buffer {
  return Buffer.from(cat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), msg(1, str(1, apiVersion), str(2, kind)), bytes(2, raw), str(3, contentEncoding), str(4, '')));
}
