import { describe, expect, it } from 'vitest';
import { ContainerFs, ls, mkdir, normalize, rm } from './filesystem.ts';
import { ShellSession } from './interpreter.ts';

const abs = (p: string) => normalize(p.startsWith('/') ? p : `/${p}`);

function run(session: ShellSession, script: string): { out: string; err: string; status: number } {
  let out = '';
  let err = '';
  const gen = session.source(script);
  for (;;) {
    const r = gen.next();
    if (r.done) return { out, err, status: r.value.status };
    if (r.value.t === 'out') {
      if (r.value.stream === 'stdout') out += r.value.text;
      else err += r.value.text;
    }
  }
}

describe('the emulated container file system', () => {
  it('lists, makes and removes as busybox does', () => {
    const fs = new ContainerFs({ '/etc/hostname': 'box\n' });
    expect(ls(fs, ['/etc'], abs)).toEqual({ out: 'hostname\n', status: 0 });
    expect(ls(fs, ['/nope'], abs)).toEqual({ out: '', err: 'ls: /nope: No such file or directory\n', status: 1 });
    expect(mkdir(fs, ['/a/b'], abs)).toEqual({ out: '', err: "mkdir: can't create directory '/a/b': No such file or directory\n", status: 1 });
    expect(mkdir(fs, ['-p', '/a/b'], abs).status).toBe(0);
    fs.write('/a/b/f', 'x');
    expect(rm(fs, ['/a'], abs)).toEqual({ out: '', err: "rm: '/a' is a directory\n", status: 1 });
    expect(rm(fs, ['-rf', '/a'], abs).status).toBe(0);
    expect(fs.isDir('/a') || fs.files.has('/a/b/f')).toBe(false);
  });

  it('is shared by the shell sessions of one container', () => {
    const fs = new ContainerFs();
    const ctx = { startedAt: 0, env: { HOME: '/root' }, hostname: 'box', fs };
    const one = new ShellSession(ctx);
    expect(run(one, 'cd /tmp; echo hi > f; echo more >> f')).toMatchObject({ status: 0 });
    expect(run(new ShellSession(ctx), 'cat /tmp/f; ls /tmp')).toEqual({ out: 'hi\nmore\nf\n', err: '', status: 0 });
    expect(one.prompt()).toBe('/tmp # ');
  });

  it('an exec session does not know a program it does not emulate (127)', () => {
    expect(run(new ShellSession({ startedAt: 0, env: {}, hostname: 'box' }), 'nginx -g x; echo $?')).toEqual({ out: '127\n', err: 'sh: nginx: not found\n', status: 0 });
  });
});
