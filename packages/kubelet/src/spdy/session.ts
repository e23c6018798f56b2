// A SPDY/3.1 session over one connection, as Go's spdystream speaks it (kubectl's port-forward, the apiserver's
// proxy to the kubelet): the peer opens streams with SYN_STREAM and each gets a SYN_REPLY at once; DATA
// frames carry the bytes, FIN half-closes; RST_STREAM aborts one stream, GOAWAY the session; PINGs are
// answered. spdystream keeps no flow-control windows, so WINDOW_UPDATE and SETTINGS are read and ignored.
// Frames are handled and written strictly in order (header blocks go through async zlib, see
// header-compression.ts), so each direction is a promise chain.
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import {
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  FLAG_FIN,
  FrameParser,
  FrameType,
  goAwayFrame,
  pingFrame,
  rstStreamFrame,
  RstStatus,
  SPDY_VERSION,
  SpdyProtocolError,
  streamIdOf,
  synReplyFrame,
  synStreamFrame,
  type RawFrame,
  type SpdyHeaders,
} from './frames.ts';
import { HeaderCompressor, HeaderDecompressor } from './header-compression.ts';

/** DATA payloads this side writes are cut to this size (spdystream reads whatever arrives). */
const MAX_DATA_CHUNK = 32 * 1024;

export class SpdyStream extends Duplex {
  /** The stream's headers: the SYN_STREAM's for a stream the peer opened, the SYN_REPLY's for one this side opened. */
  headers: SpdyHeaders = new Map();
  private readonly replied: Promise<void>;
  private markReplied!: () => void;

  constructor(
    readonly id: number,
    private readonly session: SpdySession,
  ) {
    super({ allowHalfOpen: true });
    this.replied = new Promise((r) => (this.markReplied = r));
  }

  /** The first value of a header (names are lower case on the wire). */
  header(name: string): string | undefined {
    return this.headers.get(name.toLowerCase())?.[0];
  }

  /** Resolves once the peer has answered a stream this side opened. */
  waitReply(): Promise<void> {
    return this.replied;
  }

  /** @internal */
  gotReply(headers: SpdyHeaders): void {
    this.headers = headers;
    this.markReplied();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    for (let at = 0; at < chunk.length; at += MAX_DATA_CHUNK) this.session.sendRaw(dataFrame(this.id, 0, chunk.subarray(at, at + MAX_DATA_CHUNK)));
    done();
  }

  override _final(done: (e?: Error | null) => void): void {
    this.session.sendRaw(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
    this.session.halfClosed(this, 'local');
    done();
  }

  /** Aborts the stream: RST_STREAM CANCEL to the peer. */
  reset(): void {
    if (this.destroyed) return;
    this.session.sendRaw(rstStreamFrame(this.id, RstStatus.CANCEL));
    this.session.forget(this.id);
    this.destroy();
  }
}

export interface SpdySessionEvents {
  stream: [SpdyStream];
  close: [];
}

export class SpdySession extends EventEmitter<SpdySessionEvents> {
  private readonly parser = new FrameParser();
  private readonly inflate = new HeaderDecompressor();
  private readonly deflate = new HeaderCompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private readonly closedSides = new Map<number, Set<'local' | 'remote'>>();
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  private nextStreamId: number;
  private lastPeerStreamId = 0;
  private closed = false;
  private tornDown = false;
  private readonly pings = new Map<number, (id: number) => void>();

  constructor(
    private readonly conn: Duplex,
    readonly role: 'server' | 'client',
  ) {
    super();
    // Client-initiated streams are odd, server-initiated even (section 2.3.2).
    this.nextStreamId = role === 'client' ? 1 : 2;
    conn.on('data', (chunk: Buffer) => {
      let frames: RawFrame[];
      try {
        frames = this.parser.push(chunk);
      } catch {
        return this.close();
      }
      for (const f of frames) this.inbound = this.inbound.then(() => this.handle(f)).catch(() => this.fail());
    });
    conn.on('close', () => this.teardown());
    conn.on('end', () => this.teardown());
    conn.on('error', () => this.teardown());
  }

  /** Opens a stream with these headers (the client side: kubectl's error and data streams). */
  openStream(headers: SpdyHeaders, fin = false): SpdyStream {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const s = this.track(id);
    this.send(async () => synStreamFrame(id, 0, 0, fin ? FLAG_FIN : 0, await this.deflate.run(encodeHeaderBlock(headers))));
    return s;
  }

  /** Sends a PING (odd IDs from a client, even from a server); resolves with the ID when the peer echoes it. */
  ping(id: number): Promise<number> {
    return new Promise((resolve) => {
      this.pings.set(id, resolve);
      this.sendRaw(pingFrame(id));
    });
  }

  /** GOAWAY, then the connection ends. */
  close(): void {
    if (this.closed) return;
    this.sendRaw(goAwayFrame(this.lastPeerStreamId, 0));
    this.outbound = this.outbound.then(() => void this.conn.end());
    this.teardown();
  }

  /** @internal Queues an already-built frame behind anything being compressed. */
  sendRaw(frame: Buffer): void {
    this.send(() => frame);
  }

  /** @internal A stream's side ended; with both ends closed it is forgotten. */
  halfClosed(s: SpdyStream, side: 'local' | 'remote'): void {
    const sides = this.closedSides.get(s.id) ?? new Set();
    sides.add(side);
    this.closedSides.set(s.id, sides);
    if (sides.size === 2) this.forget(s.id);
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
    this.closedSides.delete(id);
  }

  private send(build: () => Buffer | Promise<Buffer>): void {
    if (this.closed) return;
    this.outbound = this.outbound
      .then(async () => {
        const frame = await build();
        if (!this.conn.destroyed && this.conn.writable) this.conn.write(frame);
      })
      .catch(() => this.fail());
  }

  private track(id: number): SpdyStream {
    const s = new SpdyStream(id, this);
    this.streams.set(id, s);
    return s;
  }

  private async handle(f: RawFrame): Promise<void> {
    if (this.closed) return;
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) return this.sendRaw(rstStreamFrame(f.streamId, RstStatus.INVALID_STREAM));
      if (f.data.length > 0) s.push(Buffer.from(f.data));
      if (f.flags & FLAG_FIN) this.remoteFin(s);
      return;
    }
    if (f.version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${f.version}`);
    switch (f.type) {
      case FrameType.SYN_STREAM: {
        if (f.data.length < 10) throw new SpdyProtocolError('invalid control frame');
        const id = streamIdOf(f.data);
        const headers = decodeHeaderBlock(await this.inflate.run(f.data.subarray(10)));
        if (id === 0) throw new SpdyProtocolError('stream id zero is disallowed');
        if (this.streams.has(id)) return this.sendRaw(rstStreamFrame(id, RstStatus.STREAM_IN_USE));
        this.lastPeerStreamId = Math.max(this.lastPeerStreamId, id);
        const s = this.track(id);
        s.headers = headers;
        // spdystream's server replies to every new stream before handing it on.
        this.send(async () => synReplyFrame(id, 0, await this.deflate.run(encodeHeaderBlock(new Map()))));
        if (f.flags & FLAG_FIN) this.remoteFin(s);
        this.emit('stream', s);
        return;
      }
      case FrameType.SYN_REPLY: {
        const id = streamIdOf(f.data);
        const headers = decodeHeaderBlock(await this.inflate.run(f.data.subarray(4)));
        const s = this.streams.get(id);
        if (!s) return;
        s.gotReply(headers);
        if (f.flags & FLAG_FIN) this.remoteFin(s);
        return;
      }
      case FrameType.HEADERS: {
        const id = streamIdOf(f.data);
        const more = decodeHeaderBlock(await this.inflate.run(f.data.subarray(4)));
        const s = this.streams.get(id);
        if (!s) return;
        for (const [k, v] of more) s.headers.set(k, v);
        if (f.flags & FLAG_FIN) this.remoteFin(s);
        return;
      }
      case FrameType.RST_STREAM: {
        const id = streamIdOf(f.data);
        const s = this.streams.get(id);
        this.forget(id);
        s?.destroy();
        return;
      }
      case FrameType.PING: {
        const id = f.data.readUInt32BE(0);
        // The peer's pings (odd from a client, even from a server) are echoed; an echo of ours ends here.
        const peerOdd = this.role === 'server';
        if ((id % 2 === 1) === peerOdd) this.sendRaw(pingFrame(id));
        else this.pings.get(id)?.(id);
        this.pings.delete(id);
        return;
      }
      case FrameType.GOAWAY:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and unknown types: spdystream keeps no windows either.
        return;
    }
  }

  private remoteFin(s: SpdyStream): void {
    s.push(null);
    this.halfClosed(s, 'remote');
  }

  private fail(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.destroy();
    this.teardown();
  }

  private teardown(): void {
    this.closed = true;
    for (const s of this.streams.values()) s.destroy();
    this.streams.clear();
    if (this.tornDown) return;
    this.tornDown = true;
    this.inflate.close();
    this.deflate.close();
    this.emit('close');
  }
}
