// Two connected in-memory Duplex ends: what one writes the other reads, an end() is the other's EOF and a
// destroy closes both, like the two sides of a loopback TCP connection. (Node 20 has no stream.duplexPair.)
import { Duplex } from 'node:stream';

export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (other: () => Duplex): Duplex =>
    new Duplex({
      allowHalfOpen: true,
      read() {},
      write(chunk: Buffer, _enc, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
      destroy(err, done) {
        const o = other();
        if (!o.destroyed) o.destroy();
        done(err);
      },
    });
  ends.push(make(() => ends[1] as Duplex), make(() => ends[0] as Duplex));
  return [ends[0] as Duplex, ends[1] as Duplex];
}
