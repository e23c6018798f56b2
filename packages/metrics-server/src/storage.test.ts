// metrics-server's storage rules: usage needs two points, a restart (counter back to zero, a later start time)
// starts over, a container started 10 s to one resolution before its first point counts its start as the first,
// and a pod shows only when every container has two points.
import { describe, expect, it } from 'vitest';
import { decodeResourceMetrics, type MetricsBatch } from './decode.ts';
import { MetricsStorage } from './storage.ts';

const T0 = 1_800_000_000_000;
function batch(at: number, containers: { pod: string; name: string; cpu: number; start?: number }[]): Map<string, MetricsBatch> {
  const lines = [`node_cpu_usage_seconds_total ${at / 1000} ${at}`, `node_memory_working_set_bytes 1024 ${at}`];
  for (const c of containers) {
    const l = `{container="${c.name}",namespace="ns",pod="${c.pod}"}`;
    lines.push(`container_cpu_usage_seconds_total${l} ${c.cpu} ${at}`, `container_memory_working_set_bytes${l} 2048 ${at}`);
    if (c.start) lines.push(`container_start_time_seconds${l} ${c.start / 1000} ${at}`);
  }
  return new Map([['n1', decodeResourceMetrics(lines.join('\n') + '\n', at)]]);
}

describe('metrics storage', () => {
  it('computes usage from the last two points, starting over after a restart', () => {
    const s = new MetricsStorage(15_000);
    s.store(batch(T0, [{ pod: 'a', name: 'c', cpu: 10, start: T0 - 3_600_000 }]));
    expect([s.node('n1'), s.pod('ns', 'a')]).toEqual([undefined, undefined]);
    s.store(batch(T0 + 15_000, [{ pod: 'a', name: 'c', cpu: 13, start: T0 - 3_600_000 }]));
    expect(s.node('n1')).toEqual({ nanoCores: 1e9, memoryBytes: 1024, timestamp: T0 + 15_000, windowMs: 15_000 });
    expect(s.pod('ns', 'a')).toEqual({ containers: [{ name: 'c', usage: { nanoCores: 200_000_000, memoryBytes: 2048 } }], time: { timestamp: T0 + 15_000, windowMs: 15_000 } });
    // Restarted 5 s before this point (too fresh to count from its start): one point again.
    s.store(batch(T0 + 30_000, [{ pod: 'a', name: 'c', cpu: 1, start: T0 + 25_000 }]));
    expect(s.pod('ns', 'a')).toBeUndefined();
  });

  it('counts a fresh container from its start, and shows a pod only when every container has two points', () => {
    const s = new MetricsStorage(60_000);
    // Started 20 s before its first point: 2 s of CPU over 20 s.
    s.store(batch(T0, [{ pod: 'fresh', name: 'c', cpu: 2, start: T0 - 20_000 }, { pod: 'b', name: 'x', cpu: 1, start: T0 - 3_600_000 }]));
    expect(s.pod('ns', 'fresh')?.containers).toEqual([{ name: 'c', usage: { nanoCores: 100_000_000, memoryBytes: 2048 } }]);
    s.store(batch(T0 + 60_000, [{ pod: 'b', name: 'x', cpu: 7, start: T0 - 3_600_000 }, { pod: 'b', name: 'y', cpu: 1, start: T0 - 3_600_000 }]));
    expect(s.pod('ns', 'b')).toBeUndefined();
    // A pod that left the scrape is forgotten.
    expect(s.pod('ns', 'fresh')).toBeUndefined();
  });
});
