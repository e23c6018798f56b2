// SPDY/3 header compression (section 2.6.10.1): one zlib stream per direction for the whole session, primed
// with the SPDY dictionary, each header block ended with a sync flush. Node's zlib has no synchronous
// streaming API, so each side is a zlib stream worked one block at a time (callers serialize their calls).
import zlib from 'node:zlib';
import { SPDY_DICTIONARY } from './dictionary.ts';

class ZlibBlocks {
  private readonly chunks: Buffer[] = [];
  private failure: Error | undefined;

  constructor(private readonly z: zlib.Deflate | zlib.Inflate) {
    z.on('data', (c: Buffer) => this.chunks.push(c));
    z.on('error', (e: Error) => (this.failure = e));
  }

  /** The output for `input`, flushed: one header block in or out. */
  run(input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.z.write(input);
      this.z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        if (this.failure) return reject(this.failure);
        resolve(Buffer.concat(this.chunks.splice(0)));
      });
    });
  }

  close(): void {
    this.z.close();
  }
}

/** Compresses this side's header blocks (Go's framer uses zlib.BestCompression). */
export class HeaderCompressor extends ZlibBlocks {
  constructor() {
    super(zlib.createDeflate({ dictionary: SPDY_DICTIONARY, level: zlib.constants.Z_BEST_COMPRESSION }));
  }
}

/** Inflates the peer's header blocks. */
export class HeaderDecompressor extends ZlibBlocks {
  constructor() {
    super(zlib.createInflate({ dictionary: SPDY_DICTIONARY }));
  }
}
