// SPDY/3.1 framing (draft 3.1, section 2.2): an 8-byte header, then the payload. A control frame starts with
// the control bit, version 3 and its type; a data frame with a 31-bit stream ID. Header blocks are carried
// compressed (header-compression.ts); here they are the bytes on the wire.

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
/** The largest payload the 24-bit length allows. */
export const MAX_FRAME_LENGTH = 0xffffff;

export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** RST_STREAM status codes (section 2.4.2). */
export const RstStatus = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6, STREAM_IN_USE: 8, STREAM_ALREADY_CLOSED: 9 } as const;

export type RawFrame =
  | { control: false; streamId: number; flags: number; data: Buffer }
  | { control: true; version: number; type: number; flags: number; data: Buffer };

/** One header name with its values (several values travel NUL-separated in one entry). */
export type SpdyHeaders = Map<string, string[]>;

/** Splits a byte stream into frames; bytes of an incomplete frame wait for the next push. */
export class FrameParser {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): RawFrame[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: RawFrame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUIntBE(5, 3);
      if (this.buf.length < 8 + length) break;
      const flags = this.buf[4] ?? 0;
      const data = this.buf.subarray(8, 8 + length);
      const first = this.buf.readUInt32BE(0);
      if (first & 0x80000000) out.push({ control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, data });
      else out.push({ control: false, streamId: first & 0x7fffffff, flags, data });
      this.buf = this.buf.subarray(8 + length);
    }
    return out;
  }
}

function header8(first: number, flags: number, length: number): Buffer {
  if (length > MAX_FRAME_LENGTH) throw new RangeError(`SPDY frame payload of ${length} bytes exceeds ${MAX_FRAME_LENGTH}`);
  const h = Buffer.alloc(8);
  h.writeUInt32BE(first >>> 0, 0);
  h[4] = flags;
  h.writeUIntBE(length, 5, 3);
  return h;
}

export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  return Buffer.concat([header8((0x8000 | SPDY_VERSION) * 0x10000 + type, flags, payload.length), payload]);
}

export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  return Buffer.concat([header8(streamId & 0x7fffffff, flags, data.length), data]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

export function synStreamFrame(streamId: number, associatedId: number, priority: number, flags: number, block: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt32BE(streamId & 0x7fffffff, 0);
  fixed.writeUInt32BE(associatedId & 0x7fffffff, 4);
  fixed[8] = (priority & 0x7) << 5;
  return controlFrame(FrameType.SYN_STREAM, flags, Buffer.concat([fixed, block]));
}

export function synReplyFrame(streamId: number, flags: number, block: Buffer): Buffer {
  return controlFrame(FrameType.SYN_REPLY, flags, Buffer.concat([u32(streamId & 0x7fffffff), block]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  return controlFrame(FrameType.RST_STREAM, 0, u32(streamId & 0x7fffffff, status));
}

export function pingFrame(id: number): Buffer {
  return controlFrame(FrameType.PING, 0, u32(id));
}

export function goAwayFrame(lastGoodStreamId: number, status: number): Buffer {
  return controlFrame(FrameType.GOAWAY, 0, u32(lastGoodStreamId & 0x7fffffff, status));
}

/** The uncompressed name/value block (section 2.6.10): counts and lengths are 32-bit. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [u32(headers.size)];
  for (const [name, values] of headers) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export class SpdyProtocolError extends Error {}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = new Map();
  let at = 0;
  const take = (n: number): Buffer => {
    if (at + n > block.length) throw new SpdyProtocolError('truncated header block');
    const b = block.subarray(at, at + n);
    at += n;
    return b;
  };
  const count = take(4).readUInt32BE(0);
  for (let i = 0; i < count; i++) {
    const name = take(take(4).readUInt32BE(0)).toString('utf8');
    const value = take(take(4).readUInt32BE(0)).toString('utf8');
    // Go's framer refuses upper-case names and repeated names alike.
    if (name !== name.toLowerCase()) throw new SpdyProtocolError('header was not lowercased');
    if (headers.has(name)) throw new SpdyProtocolError('multiple headers with same name');
    headers.set(name, value.split('\0'));
  }
  return headers;
}

/** The leading 31-bit stream ID of a control frame's payload. */
export function streamIdOf(payload: Buffer): number {
  if (payload.length < 4) throw new SpdyProtocolError('invalid control frame');
  return payload.readUInt32BE(0) & 0x7fffffff;
}
