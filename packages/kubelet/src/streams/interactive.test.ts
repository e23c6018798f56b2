import { describe, expect, it } from 'vitest';
import { ShellSession } from '../shell/interpreter.ts';
import { InteractiveShell } from './interactive.ts';

function shell(tty: boolean) {
  let out = '';
  let err = '';
  const s = new InteractiveShell(new ShellSession({ startedAt: 0, env: { HOME: '/root' }, hostname: 'box' }), {
    tty,
    signal: new AbortController().signal,
    write: (stream, text) => (stream === 'stdout' ? (out += text) : (err += text)),
  });
  return { s, out: () => out, err: () => err };
}

describe('an interactive shell', () => {
  it('with a terminal: prompt, echo, CR-LF, backspace, ^C, and exit', async () => {
    const t = shell(true);
    t.s.start();
    t.s.input(Buffer.from('echo hx\x7fi\r'));
    await new Promise((r) => setImmediate(r));
    t.s.input(Buffer.from('junk\x03cd /tmp\r'));
    await new Promise((r) => setImmediate(r));
    t.s.input(Buffer.from('\x1b[Aexit 5\r'));
    expect(await t.s.done).toBe(5);
    expect(t.out()).toBe('/ # echo hx\b \bi\r\nhi\r\n/ # junk^C\r\n/ # cd /tmp\r\n/tmp # exit 5\r\n');
  });

  it('without one: piped lines run as a script, a block waits for its end, end of input exits with the last status', async () => {
    const t = shell(false);
    t.s.start();
    t.s.input(Buffer.from('if true; then\n echo in\nfi\nnope\n'));
    t.s.end();
    expect(await t.s.done).toBe(127);
    expect([t.out(), t.err()]).toEqual(['in\n', 'sh: nope: not found\n']);
  });
});
