// Child process of bench/store-write.ts: writes to the store at a fixed rate for a while, each value
// carrying the wall-clock time just before the write was submitted, so a watcher in another process
// can measure commit-to-delivery latency. usage: store-rate-writer.ts <db> <id> <writes/s> <seconds>
import { SqliteBackend } from '../packages/store/src/sqlite.ts';

const [path, id, rateArg, secondsArg] = process.argv.slice(2);
if (!path || !id || !rateArg || !secondsArg) {
  process.stderr.write('usage: store-rate-writer.ts <db> <id> <writes/s> <seconds>\n');
  process.exit(2);
}
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const backend = new SqliteBackend({ path, compactIntervalMs: 0 });
const wallNow = (): number => performance.timeOrigin + performance.now();

const keys = Array.from({ length: 50 }, (_, i) => `/registry/bench/w${id}/k${i}`);
const start = performance.now();
let sent = 0;
let errors = 0;
const commitMs: number[] = [];
const inflight = new Set<Promise<unknown>>();
const tick = (): void => {
  const elapsed = (performance.now() - start) / 1000;
  if (elapsed >= seconds) {
    void Promise.all(inflight).then(async () => {
      await backend.close();
      commitMs.sort((a, b) => a - b);
      const q = (f: number): number => commitMs[Math.min(commitMs.length - 1, Math.floor(f * commitMs.length))] ?? NaN;
      const line = `${JSON.stringify({ done: { sent, errors, commitP50: q(0.5), commitP99: q(0.99) } })}\n`;
      process.stdout.write(line, () => process.exit(0));
    });
    return;
  }
  const due = Math.floor(elapsed * rate);
  while (sent < due) {
    const key = keys[sent % keys.length] as string;
    const t = wallNow();
    const value = JSON.stringify({ t, n: sent });
    const p = (sent < keys.length ? backend.create(key, value) : backend.update(key, value))
      .then(() => commitMs.push(wallNow() - t))
      .catch(() => errors++)
      .finally(() => inflight.delete(p));
    inflight.add(p);
    sent++;
  }
  setTimeout(tick, 1);
};
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.stdin.once('data', () => tick());
