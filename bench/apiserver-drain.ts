// Child process of bench/apiserver-bench.ts (--drain-procs): holds fan-out watchers that are not sampled for
// latency, so 1,000 streams do not load the measuring process's event loop. Opens its watches, prints
// "ready", and on a line on stdin prints each watch's event-line count as JSON and exits.
// usage: apiserver-drain.ts <watch-url> <watchers>
import { Agent } from 'undici';
import { drainWatch } from './lib/drain-watch.ts';

const [url, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!url || !Number.isInteger(count) || count < 0) {
  process.stderr.write('usage: apiserver-drain.ts <watch-url> <watchers>\n');
  process.exit(2);
}
const agent = new Agent({ connections: 2048, pipelining: 1, keepAliveTimeout: 60_000 });
const drains = await Promise.all(Array.from({ length: count }, () => drainWatch(url, agent)));
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  process.stdout.write(`${JSON.stringify(drains.map((d) => d.lines()))}\n`, () => process.exit(0));
});
