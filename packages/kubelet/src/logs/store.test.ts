import { describe, expect, it } from 'vitest';
import { ContainerLogs, LogInstance, recordBytes } from './store.ts';

describe('LogInstance', () => {
  it('keeps one record per line and a partial line as its own record', () => {
    const log = new LogInstance('id');
    log.append(1, 'stdout', 'a\nb\npart');
    log.append(2, 'stderr', 'ial\n');
    expect(log.kept().map((r) => [r.seq, r.ts, r.stream, r.text])).toEqual([
      [0, 1, 'stdout', 'a\n'],
      [1, 1, 'stdout', 'b\n'],
      [2, 1, 'stdout', 'part'],
      [3, 2, 'stderr', 'ial\n'],
    ]);
  });

  it('drops the oldest records beyond --container-log-max-size', () => {
    const one = recordBytes({ stream: 'stdout', text: 'line 0\n' });
    const log = new LogInstance('id', one * 3);
    for (let i = 0; i < 5000; i++) log.append(i, 'stdout', `line ${i % 10}\n`);
    expect(log.kept().map((r) => r.text)).toEqual(['line 7\n', 'line 8\n', 'line 9\n']);
    expect(log.kept()[0]?.seq).toBe(4997);
    expect(log.since(4998).map((r) => r.seq)).toEqual([4998, 4999]);
    expect(log.since(10).map((r) => r.seq)).toEqual([4997, 4998, 4999]);
  });

  it('writes nothing once finished', () => {
    const log = new LogInstance('id');
    log.finish();
    log.append(1, 'stdout', 'late\n');
    expect(log.kept()).toEqual([]);
  });
});

describe('ContainerLogs', () => {
  it('keeps the current and the previous instance', () => {
    const logs = new ContainerLogs();
    const a = logs.start('a');
    logs.start('b');
    expect(logs.get('a')).toBe(a);
    logs.start('c');
    expect(logs.get('a')).toBeUndefined();
    expect(a.finished).toBe(true);
    expect(logs.get('b')).toBeDefined();
    expect(logs.get('c')).toBeDefined();
  });
});
