import { describe, expect, it } from 'vitest';
import { ShellSyntaxError, parse } from './parser.ts';

describe('parse', () => {
  it('reads lists, loops and conditionals', () => {
    const list = parse('for i in 1 2 3; do echo $i; done\nwhile true; do sleep 1; done && echo x || echo y');
    expect(list).toHaveLength(2);
    expect(list[0]?.first.commands[0]?.kind).toBe('for');
    expect(list[1]?.rest.map((r) => r.op)).toEqual(['&&', '||']);
  });

  it('keeps quoting in word parts', () => {
    const [item] = parse(`echo "a $B" 'c $d' e\\ f $(date) $((1+2))`);
    const cmd = item?.first.commands[0];
    expect(cmd?.kind === 'simple' && cmd.words.map((w) => w.parts.map((p) => p.kind))).toEqual([['lit'], ['lit', 'var'], ['lit'], ['lit', 'lit', 'lit'], ['cmd'], ['arith']]);
  });

  it('reads redirections', () => {
    const [item] = parse('echo x >&2 2>/dev/null');
    const cmd = item?.first.commands[0];
    expect(cmd?.kind === 'simple' && cmd.redirects.map((r) => [r.fd, r.op])).toEqual([[1, '>&'], [2, '>']]);
  });

  it.each(['if true; then echo', 'echo "unterminated', 'do done', 'for; do :; done', 'echo )'])('rejects %j', (s) => {
    expect(() => parse(s)).toThrow(ShellSyntaxError);
  });
});
