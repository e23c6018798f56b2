import { describe, expect, it } from 'vitest';
import { runProcess, type ProcessEvent } from './interpreter.ts';
import { Input, read } from './read.ts';

const out = (script: string) =>
  [...runProcess(['sh', '-c', script], { startedAt: 0, env: {}, hostname: 'h', files: { '/etc/list': 'one two three\nsecond line\n' } })]
    .map((e: ProcessEvent) => (e.kind === 'output' ? e.text : e.kind === 'exit' ? `[${e.exitCode}]` : ''))
    .join('');

describe('read', () => {
  it('splits a line into names, the last taking the rest; REPLY without names; fails at end of input', () => {
    const input = new Input('a  b c d \nx\\ y\\\nz\nlast');
    expect(read(['first', 'second', 'rest'], input)).toEqual({ vars: { first: 'a', second: 'b', rest: 'c d' }, status: 0 });
    expect(read([], input)).toEqual({ vars: { REPLY: 'x yz' }, status: 0 });
    expect(read(['-r', 'l'], input)).toEqual({ vars: { l: 'last' }, status: 1 });
    expect(read(['l'], input)).toEqual({ vars: { l: '' }, status: 1 });
  });

  it('reads a redirected file line by line in a loop, and a pipe', () => {
    expect(out('while read a b; do echo "<$a|$b>"; done < /etc/list')).toBe('<one|two three>\n<second|line>\n[0]');
    expect(out('printf "1\\n2\\n" | while read n; do echo $((n*10)); done')).toBe('10\n20\n[0]');
    expect(out('read x; echo "st=$? x=$x"')).toBe('st=1 x=\n[0]');
  });
});
