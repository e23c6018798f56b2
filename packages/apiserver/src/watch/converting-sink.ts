// A watch of a custom resource's version converted by its CRD's webhook: the cache and the session hold the
// stored form, and this sink converts the objects of the events written to it before the client's sink gets
// them — what is waiting goes in one review, in order, and a bookmark or error keeps its place behind the
// events before it. A Table watch gets its rows from the converted objects. A failed conversion ends the
// watch with an ERROR event carrying the 500 Status.
import { errors, StatusError, toStatus, type KubeObject } from '@kemu/api';
import type { AsyncConversion } from '../crd/webhook-views.ts';
import { lineFor } from './event.ts';
import { frame, tableEventLine, type TableMode, type WatchSink } from './session.ts';

const OBJECT_EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/** The newline-terminated lines of a buffer (an event line is one JSON document, never split). */
function linesOf(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(10, start);
    if (nl < 0) break;
    out.push(buf.subarray(start, nl + 1));
    start = nl + 1;
  }
  return out;
}

export function convertingSink(inner: WatchSink, conv: AsyncConversion, table?: TableMode): WatchSink {
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let running = false;
  let ending = false;
  let done = false;
  let sentColumns = false;
  const closers: (() => void)[] = [];
  const out = (b: Buffer): Buffer => (inner.framed ? frame(b) : b);

  async function convert(batch: Buffer[]): Promise<Buffer[]> {
    const events = batch.map((l) => JSON.parse(l.toString('utf8')) as { type: string; object: KubeObject });
    const objects = events.filter((e) => OBJECT_EVENTS.has(e.type)).map((e) => e.object);
    const converted = objects.length > 0 ? await conv.fromStorage(objects, objects.length > 1) : [];
    let next = 0;
    return events.map((e, i) => {
      if (!OBJECT_EVENTS.has(e.type)) return batch[i] as Buffer;
      const obj = converted[next++] as KubeObject;
      if (!table) return lineFor(e.type, obj);
      const line = tableEventLine(e.type, obj, table, !sentColumns);
      sentColumns = true;
      return line;
    });
  }

  function fail(e: unknown): void {
    const err = e instanceof StatusError ? e : errors.internal(e instanceof Error ? e.message : String(e));
    inner.write(out(lineFor('ERROR', toStatus(err))));
    finish();
    for (const cb of closers) cb();
  }

  function finish(): void {
    done = true;
    queue.length = 0;
    queuedBytes = 0;
    inner.end();
  }

  async function drain(): Promise<void> {
    running = true;
    while (queue.length > 0 && !done) {
      const batch = queue.splice(0);
      const size = batch.reduce((n, b) => n + b.length, 0);
      try {
        const lines = await convert(batch);
        queuedBytes -= size;
        if (!done) inner.write(lines.map(out));
      } catch (e) {
        if (!done) fail(e);
      }
    }
    running = false;
    if (ending && !done) finish();
  }

  return {
    write: (buf) => {
      if (done) return;
      for (const b of Array.isArray(buf) ? buf : [buf]) {
        for (const l of linesOf(b)) queue.push(l);
        queuedBytes += b.length;
      }
      if (!running) void drain();
    },
    buffered: () => inner.buffered() + queuedBytes,
    end: () => {
      ending = true;
      if (!running && !done) finish();
    },
    destroy: () => {
      done = true;
      queue.length = 0;
      queuedBytes = 0;
      inner.destroy();
    },
    onClose: (cb) => {
      closers.push(cb);
      inner.onClose(cb);
    },
    ...(inner.peer ? { peer: () => inner.peer?.() ?? '' } : {}),
  };
}
