// Bench helper: a watch that only counts event lines, for the fan-out watchers not sampled for latency
// (in the bench process with --drain-procs 0, else in bench/apiserver-drain.ts children).
import { request, type Dispatcher } from 'undici';

export async function drainWatch(url: string, dispatcher: Dispatcher): Promise<{ close(): void; lines(): number }> {
  const ac = new AbortController();
  const res = await request(url, { signal: ac.signal, dispatcher });
  let n = 0;
  void (async () => {
    try {
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
      }
    } catch {
      // aborted
    }
  })();
  return { close: () => ac.abort(), lines: () => n };
}
