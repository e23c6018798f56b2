// Hostile-client soak: one kube-apiserver replica (fresh SQLite file) under a normal write load, in
// windows that alternate between the load alone and the load with hostile clients beside it: connections that send headers and half a
// body, connections that never send a byte, and watches that never read, while a 100 KB ConfigMap is
// updated. Prints the normal load's p99 with and without them (same run, ratio; the goal is ≤ 2×), the
// replica's RSS (peak with the non-reading watchers, and after they leave), and how many hostile
// connections the server closed. Replica flags are Kubernetes' defaults unless given with --apiserver-flag.
// usage: npm run bench -- hostile-soak [--phase 80s] [--rounds 2] [--writers 8] [--watchers 300] [--half-bodies 210] [--silent 1000] [--updates 400] (--help lists the flags)
import path from 'node:path';
import { startApiserver } from '../test/support/apiserver.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runSoak } from './lib/hostile-soak.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'hostile-soak',
  {
    phase: { type: 'duration', default: 80_000, usage: 'time under the normal load alone, and as much again with the hostile clients' },
    rounds: { type: 'int', default: 2, usage: 'windows per phase; normal and hostile windows alternate (at the defaults each is 40 s, longer than the 32 s header and 30 s watcher deadlines)' },
    writers: { type: 'int', default: 8, usage: 'concurrent clients of the normal write load, each updating its own ConfigMap in a loop' },
    watchers: { type: 'int', default: 300, usage: 'watches that never read (half with a label selector)' },
    'half-bodies': { type: 'int', default: 210, usage: 'connections that send headers (Content-Length: 1000) and half the body, then nothing' },
    silent: { type: 'int', default: 1000, usage: 'connections that never send a byte' },
    updates: { type: 'int', default: 400, usage: 'updates of the large ConfigMap in each phase' },
    'watch-cache-size': { type: 'int', default: 100, usage: "the replica's --default-watch-cache-size: small, so the history ring does not grow with the large updates and RSS shows the hostile clients" },
    'update-bytes': { type: 'int', default: 100_000, usage: 'size of the large ConfigMap' },
    settle: { type: 'duration', default: 2_000, usage: 'pause after the hostile clients leave, before a last normal window and RSS reading' },
    'apiserver-flag': { type: 'stringArray', default: [], usage: 'an extra kube-apiserver flag (repeatable), e.g. --apiserver-flag=--read-body-timeout=2s' },
  },
  (f) => atLeast(f, 1, ['writers', 'update-bytes', 'rounds', 'watch-cache-size']) ?? atLeast(f, 0, ['watchers', 'half-bodies', 'silent', 'updates']) ?? atLeast(f, 0, ['phase'], true),
);

const mib = (b: number): string => (b / 2 ** 20).toFixed(0);

await runBench('hostile-soak', async (work) => {
  const api = await startApiserver('apiserver-soak', path.join(work.dir, 'state.db'), { extra: [`--default-watch-cache-size=${flags['watch-cache-size']}`, ...flags['apiserver-flag']] });
  const r = await runSoak({
    url: api.url,
    port: api.port,
    pid: api.proc.child.pid ?? 0,
    phaseMs: flags.phase,
    rounds: flags.rounds,
    writers: flags.writers,
    watchers: flags.watchers,
    halfBodies: flags['half-bodies'],
    silent: flags.silent,
    updates: flags.updates,
    updateBytes: flags['update-bytes'],
    settleMs: flags.settle,
    log: (l) => console.log(`  ${l}`),
  });
  console.log(`\nhostile-soak: ${flags.writers} writers, ${flags.phase / 1000} s per phase in ${flags.rounds} alternating windows; hostile: ${flags.watchers} non-reading watchers, ${flags['half-bodies']} half bodies, ${flags.silent} silent connections; ${flags.updates} updates of ${flags['update-bytes']} B per phase`);
  console.log(`normal write p99 without hostile clients  ${r.baseline.p99.toFixed(1)} ms (p50 ${r.baseline.p50.toFixed(1)}, ${r.baseline.count} writes, ${r.baseline.failed} failed)`);
  console.log(`normal write p99 with hostile clients     ${r.hostile.p99.toFixed(1)} ms (p50 ${r.hostile.p50.toFixed(1)}, ${r.hostile.count} writes, ${r.hostile.failed} failed)`);
  console.log(`p99 ratio (with / without)                ${r.ratio.toFixed(2)}×  (goal ≤ 2×: ${r.ratio <= 2 ? 'met' : 'NOT met'})`);
  console.log(`replica RSS: start ${mib(r.rss.start)} MiB, peak without hostile ${mib(r.rss.baselinePeak)} MiB, peak with non-reading watchers ${mib(r.rss.hostilePeak)} MiB, after they left (one more normal window) ${mib(r.rss.afterLeave)} MiB`);
  console.log(`host TCP buffer memory peak: ${mib(r.tcpMemory.baselinePeak)} MiB without, ${mib(r.tcpMemory.hostilePeak)} MiB with hostile clients (the kernel rations it from ${mib(r.tcpMemory.pressure)} MiB: tcp_mem)`);
  console.log(`closed by the server: ${r.terminatedWatchers} watchers (unresponsive), ${r.closedByServer.halfBodies} half bodies (${r.halfBodies504} answered 504), ${r.closedByServer.silent} silent connections`);
});
