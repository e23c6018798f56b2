// A closed-loop load: `concurrency` callers each send one request, wait for it, send the next, for `seconds`.
// Returns the count, requests/s, latency quantiles and the process's CPU share, as the request benches print them.
export interface ClosedLoopResult {
  count: number;
  seconds: number;
  perSecond: number;
  /** Latency quantile in ms, e.g. q(0.5), q(0.99). */
  q(p: number): number;
  /** CPU of this process (user + system) over the run, in percent of one core. */
  cpuPercent: number;
}

export async function closedLoop(seconds: number, concurrency: number, request: () => Promise<unknown>): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const s = performance.now();
        await request();
        latencies.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    q: (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0,
    cpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
  };
}
