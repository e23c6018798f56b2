// Protobuf wire-format reader: varints, length-delimited slices, fixed32/64. Every read is bounds-checked
// and throws WireError on truncated or malformed input, so callers can turn any bad body into a 400.

export class WireError extends Error {}

export const WIRE = { varint: 0, fixed64: 1, bytes: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

export interface Tag {
  field: number;
  wire: number;
}

export class Reader {
  pos: number;
  readonly end: number;

  constructor(readonly buf: Uint8Array, start = 0, end = buf.length) {
    this.pos = start;
    this.end = end;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** An unsigned varint as a bigint (up to 64 bits). */
  varintBig(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new WireError('truncated varint');
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new WireError('varint longer than 10 bytes');
  }

  /** A varint read as a signed 64-bit integer (int32/int64 fields), as a JS number. */
  int(): number {
    return Number(BigInt.asIntN(64, this.varintBig()));
  }

  /** A varint read as an unsigned count (tags, lengths). */
  uint(): number {
    const v = this.varintBig();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new WireError('varint out of range');
    return Number(v);
  }

  tag(): Tag {
    const v = this.uint();
    const field = Math.floor(v / 8);
    const wire = v % 8;
    if (field === 0) throw new WireError('field number 0');
    return { field, wire };
  }

  /** The payload of a length-delimited field, as [start, end) offsets into buf. */
  bytesRange(): [number, number] {
    const len = this.uint();
    const start = this.pos;
    if (len > this.end - start) throw new WireError('length-delimited field runs past the end of its message');
    this.pos = start + len;
    return [start, start + len];
  }

  bytes(): Uint8Array {
    const [s, e] = this.bytesRange();
    return this.buf.subarray(s, e);
  }

  string(): string {
    const [s, e] = this.bytesRange();
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + s, e - s).toString('utf8');
  }

  fixed64(): DataView {
    return this.fixed(8);
  }

  fixed32(): DataView {
    return this.fixed(4);
  }

  private fixed(n: number): DataView {
    if (this.end - this.pos < n) throw new WireError(`truncated fixed${n * 8}`);
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return view;
  }

  /** Skips one field's payload (unknown field numbers). Groups are obsolete and refused. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE.varint:
        this.varintBig();
        return;
      case WIRE.fixed64:
        this.fixed(8);
        return;
      case WIRE.bytes:
        this.bytesRange();
        return;
      case WIRE.fixed32:
        this.fixed(4);
        return;
      default:
        throw new WireError(`unsupported wire type ${wire}`);
    }
  }
}
