// Caps V8's young generation. A process emulating a thousand nodes allocates steadily (heartbeats, watch
// events), and V8 doubles the semi-spaces up to 16 MiB each: 32+ MiB of young generation, more than all the
// nodes' own state. The size flag cannot change once the process runs, but the growth factor is read at
// each growth: let the young generation grow to `capMb`, then stop its growth.
import v8 from 'node:v8';

export function capYoungGeneration(capMb: number): void {
  if (!(capMb > 0)) return;
  const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  const check = () => {
    if (newSpace() < capMb * 1024 * 1024) return false;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (check()) return;
  const timer = setInterval(() => {
    if (check()) clearInterval(timer);
  }, 200);
  timer.unref();
}
