import { describe, expect, it } from 'vitest';
import type { Container } from '@kemu/api';
import { ContainerFs, ls } from '../shell/filesystem.ts';
import type { Mount, VolumeFile } from '../volumes/contents.ts';
import type { RunningContainer } from './containers.ts';
import { refreshMounts } from './mounts.ts';
import { timestampDir } from './atomic-layout.ts';

const file = (text: string): VolumeFile => ({ content: Buffer.from(text), mode: 0o644 });

function container(mounts: () => Mount[]): RunningContainer {
  const fs = new ContainerFs();
  return { pod: { mounts: async () => mounts() }, spec: { name: 'c' } as Container, state: { fs, mounted: new Map() } } as unknown as RunningContainer;
}

const names = (c: RunningContainer, dir: string) => ls(c.state.fs, ['-a', dir], (p) => p).out.split('\n').filter((n) => n !== '');

describe('atomic-writer volumes in the container file system', () => {
  it('names the timestamped directory as Go and MkdirTemp do', () => {
    expect(timestampDir(Date.parse('2026-12-04T10:00:07.5Z'), 3459873456)).toBe('..2026_12_04_10_00_07.3459873456');
  });

  it('lays a configMap volume out under ..data and a timestamped directory, and moves both when the contents change', async () => {
    let files = new Map([['/etc/config/game.properties', file('lives=3\n')], ['/etc/config/ui/theme', file('dark')]]);
    const c = container(() => [{ mountPath: '/etc/config', files, live: true, single: false }]);
    await refreshMounts(c);
    const first = names(c, '/etc/config');
    expect(first).toEqual(['.', '..', expect.stringMatching(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/), '..data', 'game.properties', 'ui']);
    const ts = first[2] as string;
    const fs = c.state.fs;
    expect(fs.files.get('/etc/config/game.properties')).toBe('lives=3\n');
    expect(fs.files.get('/etc/config/..data/ui/theme')).toBe('dark');
    expect(fs.files.get(`/etc/config/${ts}/game.properties`)).toBe('lives=3\n');
    expect(Object.fromEntries(fs.links)).toEqual({ '/etc/config/..data': ts, '/etc/config/game.properties': '..data/game.properties', '/etc/config/ui': '..data/ui' });
    // Unchanged contents: nothing is rewritten.
    await refreshMounts(c);
    expect(names(c, '/etc/config')[2]).toBe(ts);
    files = new Map([['/etc/config/game.properties', file('lives=5\n')]]);
    await refreshMounts(c);
    const second = names(c, '/etc/config');
    expect(second).toHaveLength(5);
    expect(second[2]).not.toBe(ts);
    expect(second.slice(3)).toEqual(['..data', 'game.properties']);
    expect(fs.files.get('/etc/config/..data/game.properties')).toBe('lives=5\n');
    expect(fs.isDir(`/etc/config/${ts}`)).toBe(false);
    expect(fs.links.has('/etc/config/ui')).toBe(false);
  });

  it('ls -la shows the links as busybox does', async () => {
    const c = container(() => [{ mountPath: '/etc/config', files: new Map([['/etc/config/key', file('value-1')]]), live: true, single: false }]);
    await refreshMounts(c);
    const fs = c.state.fs;
    const ts = fs.links.get('/etc/config/..data') as string;
    const at = Date.parse('2026-12-04T10:00:00Z');
    for (const p of fs.mtimes.keys()) fs.mtimes.set(p, at);
    fs.mtimes.set('/etc', at);
    expect(ls(fs, ['-la', '/etc/config'], (p) => p, at + 60_000).out).toBe(
      [
        'total 12',
        'drwxr-xr-x    3 root     root          4096 Dec  4 10:00 .',
        'drwxr-xr-x    3 root     root          4096 Dec  4 10:00 ..',
        `drwxr-xr-x    2 root     root          4096 Dec  4 10:00 ${ts}`,
        `lrwxrwxrwx    1 root     root            ${ts.length} Dec  4 10:00 ..data -> ${ts}`,
        'lrwxrwxrwx    1 root     root            10 Dec  4 10:00 key -> ..data/key',
        '',
      ].join('\n'),
    );
    expect(ls(fs, ['-l', `/etc/config/${ts}/key`], (p) => p, at + 60_000).out).toBe(`-rw-r--r--    1 root     root             7 Dec  4 10:00 /etc/config/${ts}/key\n`);
  });

  it('leaves an emptyDir and a subPath file as they are', async () => {
    const c = container(() => [
      { mountPath: '/cache', files: new Map(), live: false, single: false },
      { mountPath: '/etc/app.conf', files: new Map([['/etc/app.conf', file('x')]]), live: false, single: true },
    ]);
    await refreshMounts(c);
    expect(names(c, '/cache')).toEqual(['.', '..']);
    expect(c.state.fs.files.get('/etc/app.conf')).toBe('x');
    expect(c.state.fs.links.size).toBe(0);
  });
});
