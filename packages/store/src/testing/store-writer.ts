// A child process for multi-process tests and benchmarks: opens the SQLite store given on the command
// line, waits for "go" on stdin, then runs `concurrency` loops that together make `count` writes
// (a create of a fresh key, then updates of it with its expected revision), and prints one JSON line
// per acknowledged write: {"ack":[revision,key,value]}. Errors print {"error":...}; the end {"done":...}.
//
// usage: node --import tsx store-writer.ts <db-path> <worker-id> <count> <concurrency> [updatesPerKey]
import { createInterface } from 'node:readline';
import { SqliteBackend } from '../sqlite.ts';

const [path, id, countArg, concArg, updArg] = process.argv.slice(2);
if (!path || !id || !countArg || !concArg) {
  process.stderr.write('usage: store-writer.ts <db-path> <worker-id> <count> <concurrency> [updatesPerKey]\n');
  process.exit(2);
}
const count = Number(countArg);
const concurrency = Number(concArg);
const updatesPerKey = Number(updArg ?? '1');

const backend = new SqliteBackend({ path, compactIntervalMs: 0 });
const out = (o: unknown): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};

let issued = 0;
let errors = 0;
async function loop(lane: number): Promise<void> {
  let n = 0;
  while (issued < count) {
    const key = `/registry/mp/w${id}/l${lane}/k${n++}`;
    issued++;
    try {
      let kv = await backend.create(key, `c-${id}-${lane}-${n}`);
      out({ ack: [kv.modRevision, key, kv.value] });
      for (let u = 0; u < updatesPerKey && issued < count; u++) {
        issued++;
        kv = await backend.update(key, `u${u}-${id}-${lane}-${n}`, kv.modRevision);
        out({ ack: [kv.modRevision, key, kv.value] });
      }
    } catch (err) {
      errors++;
      out({ error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  }
}

out({ ready: true });
const rl = createInterface({ input: process.stdin });
rl.once('line', () => {
  rl.close();
  const started = performance.now();
  void Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i))).then(async () => {
    const ms = performance.now() - started;
    const stats = backend.writeStats;
    await backend.close();
    // Exit only once stdout has been flushed: a pipe the parent reads slowly may buffer acks in
    // this process, and process.exit() would drop them.
    process.stdout.write(`${JSON.stringify({ done: { errors, ms, ...stats } })}\n`, () => process.exit(errors > 0 ? 1 : 0));
  });
});
