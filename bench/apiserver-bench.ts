// kube-apiserver benchmark, printing figures:
//  1. write throughput: 64 concurrent clients creating small ConfigMaps over 3 replicas on one SQLite
//     file (--store etcd: on a one-member etcd), and the same load as plain puts against a one-member etcd
//     3.4 on loopback (ratio kemu/etcd);
//  2. cross-replica watch latency p50/p99 at 500 writes/s (--cross-rate; writes through A and C, watch on B);
//  3. watch fan-out: 1,000 watchers on one replica, 200 writes/s, delivery p99;
//  4. listing 10,000 pods (resourceVersion=0 from the watch cache, and consistent from the store), and RSS.
// usage: npm run bench -- apiserver [--store sqlite|etcd] [--cross-rate N] [--seconds S] [--watchers N] [--pods N] [--skip-etcd] [--phases write,etcd,cross,fanout,list]
//        [--drain-procs N] (--help lists the flags)
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { drainWatch } from './lib/drain-watch.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';
import { runBench, type Work } from './lib/workdir.ts';
import { etcdMissing, startEtcd } from '@kemu/store/testing/etcd-server';

const ALL_PHASES = ['write', 'etcd', 'cross', 'fanout', 'list'];
const flags = benchFlags(
  'apiserver',
  {
    seconds: { type: 'float', default: 8, usage: 'length of each timed phase (writes, cross-replica latency, fan-out) in seconds' },
    watchers: { type: 'int', default: 1000, usage: 'watchers on one replica in the fan-out phase (latency sampled on up to 50)' },
    pods: { type: 'int', default: 10_000, usage: 'pods to create and list in the list phase' },
    'skip-etcd': { type: 'bool', default: false, usage: 'leave out the etcd comparison' },
    'cross-rate': { type: 'int', default: 500, usage: 'writes/s in the cross-replica watch latency phase (below what the store sustains, or the latency is queueing)' },
    store: { type: 'string', default: 'sqlite', usage: "the replicas' store: sqlite (one file) or etcd (a one-member etcd on loopback, --etcd-servers)" },
    phases: { type: 'stringArray', default: ALL_PHASES, usage: 'phases to run' },
    'drain-procs': { type: 'int', default: 2, usage: 'child processes holding the fan-out watchers not sampled for latency; 0: in the bench process' },
  },
  (f) =>
    atLeast(f, 0, ['seconds'], true) ??
    atLeast(f, 1, ['watchers', 'pods', 'cross-rate']) ??
    atLeast(f, 0, ['drain-procs']) ??
    oneOf(f, 'phases', ALL_PHASES) ??
    oneOf(f, 'store', ['sqlite', 'etcd']),
);
const SECONDS = flags.seconds;
const WATCHERS = flags.watchers;
const PODS = flags.pods;
const CLIENTS = 64;
const DRAIN_PROCS = flags['drain-procs'];
const skipEtcd = flags['skip-etcd'];
const PHASES = new Set(flags.phases);
const STORE = flags.store;

const procs: Proc[] = [];
const agent = new Agent({ connections: 2048, pipelining: 1, keepAliveTimeout: 60_000 });

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}
const f1 = (n: number) => n.toFixed(1);

/** The replicas' store flag: the SQLite file in the work dir, or a one-member etcd started here. */
async function storeFlag(work: Work): Promise<string> {
  if (STORE === 'sqlite') return `--datastore-endpoint=sqlite://${path.join(work.dir, 'state.db')}`;
  const why = etcdMissing();
  if (why) throw new Error(`--store etcd: ${why}`);
  const etcd = await startEtcd();
  work.defer(() => etcd.stop());
  return `--etcd-servers=${etcd.url}`;
}

async function startReplicas(n: number, work: Work): Promise<string[]> {
  const store = await storeFlag(work);
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    const p = startProcess(`apiserver-${i}`, BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--insecure-port=${port}`, store, `--hostname-override=apiserver-${i}`, '--max-requests-inflight=0', '--max-mutating-requests-inflight=0']);
    procs.push(p);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`apiserver-${i}`, async () => {
      const r = await request(`${url}/readyz`, { dispatcher: agent });
      await r.body.text();
      return r.statusCode === 200;
    }, 30_000);
    urls.push(url);
  }
  return urls;
}

async function post(url: string, body: string): Promise<number> {
  const r = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
  await r.body.text();
  return r.statusCode;
}

async function closedLoop(seconds: number, clients: number, op: (client: number, i: number) => Promise<boolean>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) if (await op(c, i)) ok++;
    }),
  );
  return ok / seconds;
}

async function kemuWrites(urls: string[]): Promise<number> {
  return closedLoop(SECONDS, CLIENTS, async (c, i) => {
    const url = `${urls[c % urls.length]}/api/v1/namespaces/default/configmaps`;
    return (await post(url, JSON.stringify({ metadata: { name: `tp-${c}-${i}` }, data: { k: 'v' } }))) === 201;
  });
}

/** Puts/s against a one-member etcd on loopback, or undefined when there is no etcd binary or it does not start. */
async function etcdWrites(work: Work): Promise<number | undefined> {
  const client = await freePort();
  const peer = await freePort();
  const url = `http://127.0.0.1:${client}`;
  const etcd = spawn('etcd', ['--data-dir', path.join(work.dir, 'etcd'), '--listen-client-urls', url, '--advertise-client-urls', url, '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `default=http://127.0.0.1:${peer}`], { stdio: 'ignore' });
  work.track(etcd);
  let spawnError: Error | undefined;
  etcd.once('error', (e) => (spawnError = e)); // ENOENT: no etcd installed
  try {
    const started = await waitFor('etcd', async () => {
      if (spawnError) throw spawnError;
      const r = await request(`${url}/health`, { dispatcher: agent });
      await r.body.text();
      return r.statusCode === 200;
    }, 20_000).then(() => true, () => false);
    if (!started) return undefined;
    const value = Buffer.from(JSON.stringify({ metadata: { name: 'x', namespace: 'default' }, data: { k: 'v' } })).toString('base64');
    return await closedLoop(SECONDS, CLIENTS, async (c, i) => {
      const key = Buffer.from(`/registry/configmaps/default/tp-${c}-${i}`).toString('base64');
      const r = await request(`${url}/v3/kv/put`, { method: 'POST', body: JSON.stringify({ key, value }), dispatcher: agent });
      await r.body.text();
      return r.statusCode === 200;
    });
  } finally {
    etcd.kill('SIGKILL');
  }
}

/** Streams a watch and calls onLine for each event line. */
async function openWatch(url: string, onLine: (line: string, at: number) => void, ready: () => void): Promise<{ close(): void }> {
  const ac = new AbortController();
  const res = await request(url, { signal: ac.signal, dispatcher: agent });
  ready();
  void (async () => {
    let buf = '';
    try {
      for await (const chunk of res.body) {
        const at = performance.now();
        buf += (chunk as Buffer).toString();
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, nl), at);
          buf = buf.slice(nl + 1);
        }
      }
    } catch {
      // aborted
    }
  })();
  return { close: () => ac.abort() };
}

/**
 * The non-sampled watchers in child processes (--drain-procs, default 2; bench/apiserver-drain.ts): real
 * watchers are separate clients, and 1,000 streams in the measuring process make its own event loop the
 * latency being measured.
 */
async function drainProcesses(work: Work, url: string, total: number, nprocs: number): Promise<{ pids: { name: string; pid: number | undefined }[]; stop(): Promise<number[]> }> {
  const children = Array.from({ length: nprocs }, (_, i) => {
    const n = Math.floor(total / nprocs) + (i < total % nprocs ? 1 : 0);
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./apiserver-drain.ts', import.meta.url)), url, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
    work.track(child);
    return child;
  });
  const outputs = children.map((c) => {
    let out = '';
    c.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    return () => out;
  });
  await waitFor('drain watchers open', () => outputs.every((o) => o().includes('ready\n')), 60_000);
  return {
    pids: children.map((c, i) => ({ name: `drain-${i}`, pid: c.pid })),
    async stop() {
      for (const c of children) c.stdin?.write('stop\n');
      await waitFor('drain counts', () => outputs.every((o) => o().split('\n').length > 2), 10_000);
      const counts = outputs.flatMap((o) => JSON.parse(o().split('\n')[1] ?? '[]') as number[]);
      for (const c of children) c.kill('SIGKILL');
      return counts;
    },
  };
}

const SENT = /"bench\/sent":"(\d+(?:\.\d+)?)"/;

/** Paced writes (rate/s) through `writers`; latency = event arrival − write start (same clock: this process). */
async function pacedLatency(writers: string[], watchUrls: string[], rate: number, seconds: number, prefix: string): Promise<number[]> {
  const lat: number[] = [];
  const start = (await (await request(`${watchUrls[0]}/api/v1/namespaces/default/configmaps?limit=1`, { dispatcher: agent })).body.json()) as { metadata: { resourceVersion: string } };
  let opened = 0;
  const watches = await Promise.all(
    watchUrls.map((w) =>
      openWatch(
        `${w}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start.metadata.resourceVersion}`,
        (line, at) => {
          const m = SENT.exec(line);
          if (m && line.includes(`"${prefix}-`)) lat.push(at - Number(m[1]));
        },
        () => opened++,
      ),
    ),
  );
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  const inflight: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sent = performance.now();
    const body = JSON.stringify({ metadata: { name: `${prefix}-${i}`, annotations: { 'bench/sent': String(sent) } } });
    inflight.push(post(`${writers[i % writers.length]}/api/v1/namespaces/default/configmaps`, body));
  }
  await Promise.all(inflight);
  const expected = total * watchUrls.length;
  const deadline = performance.now() + 10_000;
  while (lat.length < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const w of watches) w.close();
  if (lat.length < expected) console.log(`  (only ${lat.length} of ${expected} deliveries arrived)`);
  return lat;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** CPU use of this process and of each replica over fn, as a share of one core. */
async function withCpu<T>(fn: () => Promise<T>, others: { name: string; pid: number | undefined }[] = []): Promise<{ out: T; report: string }> {
  const watched = [...procs.map((p) => ({ name: p.name, pid: p.child.pid })), ...others];
  const t0 = performance.now();
  const self0 = process.cpuUsage();
  const reps0 = watched.map((w) => cpuSeconds(w.pid));
  const out = await fn();
  const secs = (performance.now() - t0) / 1000;
  const self = process.cpuUsage(self0);
  const share = (cpu: number) => `${Math.round((100 * cpu) / secs)}%`;
  const reps = watched.map((w, i) => `${w.name} ${share(cpuSeconds(w.pid) - (reps0[i] ?? 0))}`);
  return { out, report: `CPU: bench client ${share((self.user + self.system) / 1e6)}, ${reps.join(', ')}` };
}

function rssMiB(p: Proc): number {
  const status = readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function timeGet(url: string, n: number): Promise<{ p50: number; bytes: number; items: number }> {
  const ts: number[] = [];
  let bytes = 0;
  let items = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await request(url, { dispatcher: agent });
    const text = await r.body.text();
    ts.push(performance.now() - t);
    bytes = text.length;
    items = (JSON.parse(text) as { items: unknown[] }).items.length;
  }
  return { p50: pct(ts, 50), bytes, items };
}

async function main(work: Work): Promise<void> {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`kube-apiserver benchmark (${SECONDS}s phases, ${CLIENTS} clients, store ${STORE === 'etcd' ? 'etcd 3.4 (1 member, loopback)' : 'SQLite'}; load average at start ${load})`);
  const urls = await startReplicas(3, work);
  const [A, B, C] = urls as [string, string, string];

  const kemu = PHASES.has('write') ? await kemuWrites(urls) : NaN;
  if (PHASES.has('write')) console.log(`write throughput, 3 replicas / ${STORE === 'etcd' ? 'one etcd' : '1 SQLite file'}: ${f1(kemu)} creates/s (goal >= 3000: ${kemu >= 3000 ? 'met' : 'NOT met'})`);
  if (!skipEtcd && PHASES.has('etcd')) {
    const e = await etcdWrites(work);
    if (e === undefined) console.log('etcd: not available (install Debian etcd-server)');
    else console.log(`etcd 3.4 (1 member, loopback, JSON gateway puts): ${f1(e)} puts/s; kemu/etcd = ${(kemu / e).toFixed(2)}`);
  }

  if (PHASES.has('cross')) {
  const rate = flags['cross-rate'];
  const cross = await pacedLatency([A, C], [B], rate, SECONDS, 'x');
  console.log(`cross-replica watch latency at ${rate} writes/s (write via A,C → watch on B): p50 ${f1(pct(cross, 50))} ms, p99 ${f1(pct(cross, 99))} ms (n=${cross.length}; goal p99 <= 20 ms: ${pct(cross, 99) <= 20 ? 'met' : 'NOT met'})`);
  }
  if (PHASES.has('fanout')) {

  // Fan-out: WATCHERS watches on B; SAMPLE of them parse events for latency, the rest count lines
  // (so this process is not the bottleneck); every watcher must receive every event.
  const SAMPLE = Math.min(50, WATCHERS);
  const rv0 = ((await (await request(`${B}/api/v1/namespaces/default/configmaps?limit=1`, { dispatcher: agent })).body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const drainUrl = `${B}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv0}`;
  const inProcess = DRAIN_PROCS === 0 ? await Promise.all(Array.from({ length: WATCHERS - SAMPLE }, () => drainWatch(drainUrl, agent))) : [];
  const children = DRAIN_PROCS > 0 ? await drainProcesses(work, drainUrl, WATCHERS - SAMPLE, DRAIN_PROCS) : undefined;
  const { out: fan, report: cpu } = await withCpu(() => pacedLatency([A], Array.from({ length: SAMPLE }, () => B), 200, SECONDS, 'f'), children?.pids);
  const drained = inProcess.map((d) => d.lines()).concat(children ? await children.stop() : []);
  for (const d of inProcess) d.close();
  const full = drained.filter((n) => n >= 200 * SECONDS).length;
  console.log(`watch fan-out: ${WATCHERS} watchers on one replica, 200 writes/s: p50 ${f1(pct(fan, 50))} ms, p99 ${f1(pct(fan, 99))} ms (latency sampled on ${SAMPLE}; ${full + (fan.length >= SAMPLE * 200 * SECONDS ? SAMPLE : 0)}/${WATCHERS} watchers got every event; goal p99 <= 100 ms: ${pct(fan, 99) <= 100 ? 'met' : 'NOT met'})`);
  console.log(`  ${cpu}`);
  }
  if (!PHASES.has('list')) return;

  let made = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; i < PODS; i += CLIENTS) {
        const pod = { metadata: { name: `pod-${i}`, labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
        if ((await post(`${urls[i % 3]}/api/v1/namespaces/default/pods`, JSON.stringify(pod))) === 201) made++;
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 500));
  const cached = await timeGet(`${B}/api/v1/pods?resourceVersion=0`, 5);
  const consistent = await timeGet(`${B}/api/v1/pods`, 5);
  const paged: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    let cont = '';
    do {
      const r = await request(`${B}/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, { dispatcher: agent });
      cont = ((await r.body.json()) as { metadata: { continue?: string } }).metadata.continue ?? '';
    } while (cont);
    paged.push(performance.now() - t);
  }
  console.log(
    `list ${made} pods: resourceVersion=0 (watch cache) p50 ${f1(cached.p50)} ms (${cached.items} items, ${f1(cached.bytes / 1048576)} MiB); ` +
      `consistent (cache at the store's revision) p50 ${f1(consistent.p50)} ms; consistent in pages of 500 (store) p50 ${f1(pct(paged, 50))} ms`,
  );
  console.log(`RSS per replica: ${procs.map((p) => `${p.name} ${f1(rssMiB(p))} MiB`).join(', ')}`);
}

await runBench('apiserver', main);
