import { describe, expect, it } from 'vitest';
import { dataFrame, decodeHeaderBlock, encodeHeaderBlock, FLAG_FIN, FrameParser, FrameType, pingFrame, rstStreamFrame, synReplyFrame, synStreamFrame } from './frames.ts';
import { HeaderCompressor, HeaderDecompressor } from './header-compression.ts';
import { SPDY_DICTIONARY } from './dictionary.ts';
import zlib from 'node:zlib';

describe('SPDY/3.1 frames', () => {
  it('the dictionary is the draft-3 one (1423 bytes, Adler-32 0xe3c6a7c2, the zlib dictionary ID on the wire)', async () => {
    expect(SPDY_DICTIONARY.length).toBe(1423);
    const first = await new HeaderCompressor().run(encodeHeaderBlock(new Map([['port', ['80']]])));
    // zlib header with FDICT set, then the dictionary's Adler-32.
    expect(first[1]! & 0x20).toBe(0x20);
    expect(first.readUInt32BE(2)).toBe(0xe3c6a7c2);
    expect(zlib.constants.Z_SYNC_FLUSH).toBe(2);
  });

  it('header blocks round-trip through the per-session zlib streams, block after block', async () => {
    const c = new HeaderCompressor();
    const d = new HeaderDecompressor();
    for (const h of [new Map([['streamtype', ['error']], ['port', ['80']], ['requestid', ['0']]]), new Map(), new Map([['streamtype', ['data']], ['x', ['a', 'b']]])]) {
      expect(decodeHeaderBlock(await d.run(await c.run(encodeHeaderBlock(h))))).toEqual(h);
    }
  });

  it('refuses upper-case and repeated header names as Go does', () => {
    expect(() => decodeHeaderBlock(Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 0x41, 0, 0, 0, 0]))).toThrow('header was not lowercased');
  });

  it('parses frames split at any byte', () => {
    const wire = Buffer.concat([
      synStreamFrame(1, 0, 0, 0, Buffer.from('abc')),
      synReplyFrame(1, FLAG_FIN, Buffer.from('de')),
      dataFrame(1, FLAG_FIN, Buffer.from('hello')),
      rstStreamFrame(3, 5),
      pingFrame(7),
    ]);
    const p = new FrameParser();
    const got = [];
    for (const b of wire) got.push(...p.push(Buffer.from([b])));
    expect(got.map((f) => (f.control ? f.type : 'data'))).toEqual([FrameType.SYN_STREAM, FrameType.SYN_REPLY, 'data', FrameType.RST_STREAM, FrameType.PING]);
    const data = got[2]!;
    expect(!data.control && data.streamId === 1 && data.flags === FLAG_FIN && data.data.toString()).toBe('hello');
    const syn = got[0]!;
    expect(syn.control && syn.version).toBe(3);
  });
});
