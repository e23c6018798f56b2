// Bench helper: the hostile-client soak against one kube-apiserver replica, shared by
// bench/hostile-soak-bench.ts (figures) and test/bench/hostile-soak.test.ts (a small, fast run).
// Windows of the same length and the same writes, alternating: a normal write load (W clients updating
// their own ConfigMap in a loop) plus updates of a large ConfigMap spread over the window; every second
// window adds hostile clients kept at their counts for the whole window (a closed one is reopened):
// connections that send headers and half a body, connections that never send a byte, and watches that
// never read. They leave at the window's end. The replica's RSS is sampled throughout.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { halfBodies, rssBytes, silentConnections, stalledWatchers, type HostileGroup } from '../../test/support/hostile-clients.ts';

export interface SoakOptions {
  url: string;
  port: number;
  /** The replica's pid, for its RSS. */
  pid: number;
  /** Time under the normal load alone, and as much again with the hostile clients. */
  phaseMs: number;
  /** Both are cut in this many windows that alternate (normal, hostile, normal, …). */
  rounds: number;
  writers: number;
  watchers: number;
  halfBodies: number;
  silent: number;
  /** Updates of the large ConfigMap per phase, and its size. */
  updates: number;
  updateBytes: number;
  /** After the hostile clients leave, a pause, then one more window of the normal load before the last RSS reading. */
  settleMs: number;
  log?: (line: string) => void;
}

export interface Latency {
  count: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
}

export interface SoakResult {
  baseline: Latency;
  hostile: Latency;
  /** hostile p99 ÷ baseline p99. */
  ratio: number;
  rss: { start: number; baselinePeak: number; hostilePeak: number; afterLeave: number };
  /** The host's TCP buffer memory (bytes, /proc/net/sockstat) at its peak in normal and in hostile windows, and where the kernel starts to ration it (tcp_mem). */
  tcpMemory: { baselinePeak: number; hostilePeak: number; pressure: number };
  /** Watchers the server cut off (apiserver_terminated_watchers_total during the hostile phase). */
  terminatedWatchers: number;
  /** Hostile connections the server closed during the hostile phase (each then reopened). */
  closedByServer: { halfBodies: number; silent: number };
  /** Of the half bodies closed by the server, how many were answered 504 Timeout. */
  halfBodies504: number;
}

/** The host's TCP buffer memory in bytes (Linux), or 0. */
function tcpMemory(): number {
  try {
    const m = /^TCP: .* mem (\d+)/m.exec(readFileSync('/proc/net/sockstat', 'utf8'));
    return m ? Number(m[1]) * 4096 : 0;
  } catch {
    return 0;
  }
}

/** tcp_mem's pressure threshold in bytes (Linux), or 0. */
function tcpPressure(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/tcp_mem', 'utf8').trim().split(/\s+/)[1] ?? 0) * 4096;
  } catch {
    return 0;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function stats(samples: number[], failed: number): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { count: s.length, failed, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

async function metric(url: string, name: string, labels: string): Promise<number> {
  const r = await request(`${url}/metrics`);
  const text = await r.body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function put(url: string, agent: Agent, name: string, data: Record<string, string>, create = false): Promise<number> {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
  const target = `${url}/api/v1/namespaces/default/configmaps${create ? '' : `/${name}`}`;
  const r = await request(target, { method: create ? 'POST' : 'PUT', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
  await r.body.text();
  return r.statusCode;
}

async function create(url: string, agent: Agent, name: string, data: Record<string, string>): Promise<void> {
  const code = await put(url, agent, name, data, true);
  if (code !== 201 && code !== 409) throw new Error(`creating ConfigMap ${name}: HTTP ${code}`);
}

/** Keeps `target` hostile connections of one kind open until stopped, reopening those the server closed. */
class Holder {
  readonly groups: HostileGroup[] = [];
  constructor(
    private readonly target: number,
    private readonly open: (n: number) => Promise<HostileGroup>,
  ) {}

  /** Sockets closed by the server so far. */
  closed(): number {
    return this.groups.reduce((n, g) => n + (g.sockets.length - g.open()), 0);
  }

  async topUp(): Promise<void> {
    const open = this.groups.reduce((n, g) => n + g.open(), 0);
    if (open < this.target) this.groups.push(await this.open(this.target - open));
  }

  leave(): void {
    for (const g of this.groups) g.close();
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => undefined);
  const agent = new Agent({ connections: o.writers + 2, keepAliveTimeout: 30_000 });
  const rss = async (): Promise<number> => (await rssBytes(o.pid)) ?? 0;
  const big = (i: number): Record<string, string> => ({ v: `${i}`.padEnd(o.updateBytes, 'x') });
  let rssPeak = 0;
  let tcpPeak = 0;
  const sampler = setInterval(() => {
    tcpPeak = Math.max(tcpPeak, tcpMemory());
    void rss().then((v) => (rssPeak = Math.max(rssPeak, v)));
  }, 200);
  try {
    for (let w = 0; w < o.writers; w++) await create(o.url, agent, `soak-${w}`, { n: '0' });
    await create(o.url, agent, 'soak-big', big(0));
    const start = await rss();
    const rounds = Math.max(1, o.rounds);
    const windowMs = o.phaseMs / rounds;
    const updatesPerWindow = Math.ceil(o.updates / rounds);
    let bigN = 0;

    /** One window of the normal load and the large updates; latencies of successful writes go to `samples`. */
    const window = async (samples: number[]): Promise<number> => {
      let failed = 0;
      const end = performance.now() + windowMs;
      const writers = Array.from({ length: o.writers }, async (_, w) => {
        for (let i = 0; performance.now() < end; i++) {
          const t0 = performance.now();
          const code = await put(o.url, agent, `soak-${w}`, { n: String(i) }).catch(() => 0);
          if (code === 200) samples.push(performance.now() - t0);
          else failed++;
        }
      });
      const gap = windowMs / Math.max(1, updatesPerWindow);
      const updater = (async () => {
        for (let i = 0; i < updatesPerWindow && performance.now() < end; i++) {
          const due = end - windowMs + i * gap;
          if (due > performance.now()) await sleep(due - performance.now());
          await put(o.url, agent, 'soak-big', big(++bigN)).catch(() => 0);
        }
      })();
      await Promise.all([...writers, updater]);
      return failed;
    };

    const watchPath = '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0';
    const baseSamples: number[] = [];
    const hostileSamples: number[] = [];
    let baseFailed = 0;
    let hostileFailed = 0;
    let baselinePeak = start;
    let hostilePeak = start;
    let tcpBaseline = 0;
    let tcpHostile = 0;
    let terminatedWatchers = 0;
    const closedByServer = { halfBodies: 0, silent: 0 };
    let halfBodies504 = 0;
    // Windows alternate, so a machine whose load drifts (other work on it) weighs on both alike.
    for (let round = 0; round < rounds; round++) {
      rssPeak = await rss();
      tcpPeak = 0;
      baseFailed += await window(baseSamples);
      baselinePeak = Math.max(baselinePeak, rssPeak);
      tcpBaseline = Math.max(tcpBaseline, tcpPeak);

      const holders = {
        half: new Holder(o.halfBodies, (n) => halfBodies(o.port, n)),
        silent: new Holder(o.silent, (n) => silentConnections(o.port, n)),
        // Half of them with a selector, so the server encodes their events apart from the others'.
        watchers: new Holder(o.watchers, async (n) => {
          const a = await stalledWatchers(o.port, Math.ceil(n / 2), watchPath);
          const b = await stalledWatchers(o.port, Math.floor(n / 2), `${watchPath}&labelSelector=app!%3Dnone`);
          return { sockets: [...a.sockets, ...b.sockets], open: () => a.open() + b.open(), close: () => (a.close(), b.close()) };
        }),
      };
      const terminated0 = await metric(o.url, 'apiserver_terminated_watchers_total', 'group="",resource="configmaps"');
      rssPeak = await rss();
      tcpPeak = 0;
      let stop = false;
      const keeper = (async () => {
        while (!stop) {
          for (const h of Object.values(holders)) if (!stop) await h.topUp();
          await sleep(250);
        }
      })();
      await waitUntil(() => holders.watchers.groups.length > 0);
      hostileFailed += await window(hostileSamples);
      stop = true;
      await keeper;
      hostilePeak = Math.max(hostilePeak, rssPeak);
      tcpHostile = Math.max(tcpHostile, tcpPeak);
      // A stalled watcher is ended once its buffer overflows and --watch-unresponsive-timeout has passed, which on a
      // loaded machine can fall after the window: give the server a few seconds to end the ones it was sent.
      const stalled = holders.watchers.groups.flatMap((g) => g.sockets).length;
      const ended = () => metric(o.url, 'apiserver_terminated_watchers_total', 'group="",resource="configmaps"').then((n) => n - terminated0);
      const endBy = performance.now() + 10_000;
      while ((await ended()) < stalled && performance.now() < endBy) await sleep(200);
      terminatedWatchers += await ended();
      closedByServer.halfBodies += holders.half.closed();
      closedByServer.silent += holders.silent.closed();
      halfBodies504 += holders.half.groups.flatMap((g) => g.sockets).filter((s) => s.closedAt !== undefined && /^HTTP\/1\.1 504 /.test(s.answer)).length;
      for (const h of Object.values(holders)) h.leave();
    }
    // The normal load goes on after they leave (as it would; it also lets the collector run).
    const after: number[] = [];
    await sleep(o.settleMs);
    await window(after);
    const afterLeave = await rss();
    const baseline = stats(baseSamples, baseFailed);
    const hostile = stats(hostileSamples, hostileFailed);
    for (const [name, l] of [['baseline', baseline], ['hostile', hostile]] as const) {
      log(`${name}: ${l.count} writes, p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(1)} ms, failed ${l.failed}`);
    }
    log(`rss MiB: start ${(start / 2 ** 20).toFixed(0)}, baseline peak ${(baselinePeak / 2 ** 20).toFixed(0)}, hostile peak ${(hostilePeak / 2 ** 20).toFixed(0)}, after they left ${(afterLeave / 2 ** 20).toFixed(0)}`);
    return {
      baseline,
      hostile,
      ratio: hostile.p99 / baseline.p99,
      rss: { start, baselinePeak, hostilePeak, afterLeave },
      tcpMemory: { baselinePeak: tcpBaseline, hostilePeak: tcpHostile, pressure: tcpPressure() },
      terminatedWatchers,
      closedByServer,
      halfBodies504,
    };
  } finally {
    clearInterval(sampler);
    await agent.close();
  }
}

async function waitUntil(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(10);
}
