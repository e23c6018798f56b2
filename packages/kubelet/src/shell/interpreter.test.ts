import { describe, expect, it } from 'vitest';
import { runProcess, BUSY_LIMIT, type ProcessEvent, type ShellContext } from './interpreter.ts';

const START = Date.UTC(2026, 11, 3, 16, 0, 0);
const ctx: ShellContext = {
  startedAt: START,
  env: { HOSTNAME: 'web-0', GREETING: 'hi there', PATH: '/usr/bin:/bin' },
  hostname: 'web-0',
  files: { '/etc/hostname': 'web-0\n' },
  endsByItself: (n) => ['wget', 'grep'].includes(n),
};

/** Events until exit/forever, or the first `max`. */
function run(argv: string[], max = 1000): ProcessEvent[] {
  const out: ProcessEvent[] = [];
  for (const e of runProcess(argv, ctx)) {
    out.push(e);
    if (out.length >= max) break;
  }
  return out;
}

const sh = (script: string, max?: number) => run(['sh', '-c', script], max);
const text = (evs: ProcessEvent[], stream = 'stdout') => evs.map((e) => (e.kind === 'output' && e.stream === stream ? e.text : '')).join('');
const end = (evs: ProcessEvent[]) => evs[evs.length - 1];

describe('runProcess', () => {
  it('the busybox loop prints three lines one second apart and exits 0 after 3 s', () => {
    const evs = sh('for i in 1 2 3; do echo hello $i; sleep 1; done');
    expect(evs).toEqual([
      { kind: 'output', atMs: 0, stream: 'stdout', text: 'hello 1\n' },
      { kind: 'output', atMs: 1000, stream: 'stdout', text: 'hello 2\n' },
      { kind: 'output', atMs: 2000, stream: 'stdout', text: 'hello 3\n' },
      { kind: 'exit', atMs: 3000, exitCode: 0 },
    ]);
  });

  it('echo boom; exit 1', () => {
    expect(sh('echo boom; exit 1')).toEqual([
      { kind: 'output', atMs: 0, stream: 'stdout', text: 'boom\n' },
      { kind: 'exit', atMs: 0, exitCode: 1 },
    ]);
  });

  it('an endless loop is produced lazily', () => {
    const evs = sh('i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.5; done', 5);
    expect(evs.map((e) => e.atMs)).toEqual([0, 500, 1000, 1500, 2000]);
    expect(text(evs)).toBe('tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n');
  });

  it('a loop that never sleeps is cut and then runs on silently', () => {
    const evs = sh('while true; do echo spin; done', BUSY_LIMIT * 2);
    expect(end(evs)).toEqual({ kind: 'forever', atMs: 0 });
    expect(evs.length).toBeLessThan(BUSY_LIMIT);
  });

  it('while [ $i -lt 3 ] with arithmetic, if/elif/else, && and ||', () => {
    const evs = sh(`i=0
while [ $i -lt 3 ]; do
  if [ $i -eq 0 ]; then echo zero; elif [ "$i" = 1 ]; then echo one; else echo other; fi
  i=$((i + 1))
done
true && echo and-ok || echo never
false || echo or-ok
[ -z "" ] && [ -n x ] && echo strings
[ -f /etc/hostname ] && [ -d /tmp ] && ! [ -f /nope ] && echo files`);
    expect(text(evs)).toBe('zero\none\nother\nand-ok\nor-ok\nstrings\nfiles\n');
    expect(end(evs)).toEqual({ kind: 'exit', atMs: 0, exitCode: 0 });
  });

  it('echo -n/-e, printf, variables from the env, $(hostname), $HOSTNAME, cat', () => {
    const evs = sh('echo -n a; echo -e "b\\tc"; printf "%s=%d\\n" n 42; printf "%s\\n" x y; echo "$GREETING from $(hostname) $HOSTNAME"; cat /etc/hostname');
    expect(text(evs)).toBe('ab\tc\nn=42\nx\ny\nhi there from web-0 web-0\nweb-0\n');
  });

  it('date in busybox format, advancing with sleep; $(date +%s)', () => {
    const evs = sh('date; sleep 61.5; echo "now $(date)"; date +%s');
    expect(text(evs)).toBe('Thu Dec  3 16:00:00 UTC 2026\nnow Thu Dec  3 16:01:01 UTC 2026\n' + `${START / 1000 + 61}\n`);
    expect(end(evs)).toEqual({ kind: 'exit', atMs: 61_500, exitCode: 0 });
  });

  it('>&2 and 1>&2 go to stderr, 2>/dev/null drops', () => {
    const evs = sh('echo out; echo err >&2; echo err2 1>&2; cat /missing 2>/dev/null; echo $?');
    expect(text(evs)).toBe('out\n1\n');
    expect(text(evs, 'stderr')).toBe('err\nerr2\n');
  });

  it('cat of an unknown file fails as busybox', () => {
    const evs = sh('cat /nope');
    expect(text(evs, 'stderr')).toBe("cat: can't open '/nope': No such file or directory\n");
    expect(end(evs)).toMatchObject({ kind: 'exit', exitCode: 1 });
  });

  it('exit codes: exit N, false, set -e, sh -c nesting, bash -c', () => {
    expect(end(sh('false'))).toMatchObject({ exitCode: 1 });
    expect(end(sh('exit 300'))).toMatchObject({ exitCode: 44 });
    expect(text(sh('set -e; echo a; false; echo b'))).toBe('a\n');
    expect(end(sh('set -e; if false; then :; fi; false || true'))).toMatchObject({ exitCode: 0 });
    expect(end(run(['bash', '-c', 'sh -c "exit 3"; echo $?; exit 4']))).toMatchObject({ exitCode: 4 });
  });

  it('sleep advances time; sleep infinity and servers run on', () => {
    expect(end(run(['sleep', '2.5']))).toEqual({ kind: 'exit', atMs: 2500, exitCode: 0 });
    expect(end(run(['sleep', 'infinity']))).toEqual({ kind: 'forever', atMs: 0 });
    expect(end(sh('echo starting; sleep 1; exec nginx -g "daemon off;"'))).toEqual({ kind: 'forever', atMs: 1000 });
    expect(end(sh('until wget -q svc; do sleep 2; done; echo up'))).toEqual({ kind: 'exit', atMs: 0, exitCode: 0 });
  });

  it('a shell with no script ends at once unless its stdin is open', () => {
    expect(end(run(['sh']))).toEqual({ kind: 'exit', atMs: 0, exitCode: 0 });
    expect(end([...runProcess(['sh'], { ...ctx, stdinOpen: true })])).toEqual({ kind: 'forever', atMs: 0 });
  });

  it('break, for over $(seq), ${x:-default}, positional args of sh -c', () => {
    expect(text(sh('for i in $(seq 1 10); do [ $i -gt 3 ] && break; echo $i; done'))).toBe('1\n2\n3\n');
    expect(text(sh('echo ${UNSET:-dflt} ${GREETING:+set}'))).toBe('dflt set\n');
    expect(text(run(['sh', '-c', 'echo $0 $1 $#', 'me', 'one']))).toBe('me one 1\n');
  });

  it('a pipeline passes output along; cat reads it', () => {
    expect(text(sh('echo piped | cat'))).toBe('piped\n');
  });

  it('files written by redirection can be read back', () => {
    expect(text(sh('echo saved > /tmp/x; echo more >> /tmp/x; cat /tmp/x; [ -f /tmp/x ] && echo yes'))).toBe('saved\nmore\nyes\n');
  });
});
