import { describe, expect, it } from 'vitest';
import { ContainerFs } from './filesystem.ts';
import { parseTarArgs, tar } from './tar.ts';

describe('tar over the emulated file system', () => {
  it('reads the options kubectl cp passes', () => {
    expect(parseTarArgs(['cf', '-', '/tmp/x'])).toMatchObject({ mode: 'c', file: '-', paths: ['/tmp/x'] });
    expect(parseTarArgs(['-xmf', '-', '-C', '/tmp'])).toMatchObject({ mode: 'x', file: '-', dir: '/tmp' });
    expect(parseTarArgs(['-q'])).toBe("tar: invalid option -- 'q'");
  });

  it('round-trips a directory through a real archive', async () => {
    const from = new ContainerFs();
    from.write('/data/a.txt', 'alpha\n');
    from.write('/data/sub/b.txt', 'beta\n');
    const packed = await tar(from, ['cf', '-', '/data'], Buffer.alloc(0), '/');
    expect(packed.status).toBe(0);
    expect(packed.err).toBe("tar: removing leading '/' from member names\n");
    // ustar: 512-byte blocks, the magic at offset 257.
    expect(packed.out.length % 512).toBe(0);
    expect(packed.out.subarray(257, 262).toString()).toBe('ustar');
    const to = new ContainerFs();
    expect(await tar(to, ['-xmf', '-', '-C', '/tmp'], packed.out, '/')).toMatchObject({ status: 0 });
    expect(to.files.get('/tmp/data/a.txt')).toBe('alpha\n');
    expect(to.files.get('/tmp/data/sub/b.txt')).toBe('beta\n');
    expect((await tar(to, ['tf', '-'], packed.out, '/')).out.toString()).toBe('data/\ndata/a.txt\ndata/sub/\ndata/sub/b.txt\n');
  });

  it('keeps bytes and modes exactly, and gzips with z (and reads a gzipped archive without it)', async () => {
    const bin = Buffer.from([0, 0xff, 0xfe, 0x80, 0x0a, 0xc3, 0x28, 0x01]);
    const from = new ContainerFs();
    from.writeBytes('/d/blob.bin', bin, 0o755);
    const packed = await tar(from, ['czf', '-', 'd'], Buffer.alloc(0), '/');
    expect([packed.status, packed.out[0], packed.out[1]]).toEqual([0, 0x1f, 0x8b]);
    for (const args of [['xzf', '-'], ['-xmf', '-']]) {
      const to = new ContainerFs();
      expect(await tar(to, [...args, '-C', '/tmp'], packed.out, '/')).toMatchObject({ status: 0 });
      expect(to.readBytes('/tmp/d/blob.bin')?.equals(bin)).toBe(true);
      expect(to.mode('/tmp/d/blob.bin')).toBe(0o755);
    }
    // The shell writing the file makes it text again.
    from.files.set('/d/blob.bin', 'text');
    expect(from.readBytes('/d/blob.bin')?.toString()).toBe('text');
    expect(await tar(new ContainerFs(), ['xzf', '-'], Buffer.from('not gzip'), '/')).toMatchObject({ status: 1, err: 'tar: invalid magic\ntar: short read\n' });
  });

  it('fails as busybox for a missing path or directory', async () => {
    const fs = new ContainerFs();
    expect(await tar(fs, ['cf', '-', '/nope'], Buffer.alloc(0), '/')).toMatchObject({ status: 1, err: "tar: removing leading '/' from member names\ntar: /nope: No such file or directory\n" });
    expect(await tar(fs, ['xf', '-', '-C', '/nope'], Buffer.alloc(0), '/')).toMatchObject({ status: 1, err: "tar: can't change directory to '/nope': No such file or directory\n" });
  });
});
