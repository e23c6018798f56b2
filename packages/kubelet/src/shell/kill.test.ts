import { describe, expect, it } from 'vitest';
import { kill } from './kill.ts';
import { ProcessTable } from './ps.ts';

describe('kill', () => {
  it('delivers TERM by default, or the signal named, to processes that exist', () => {
    const t = new ProcessTable();
    const got: number[] = [];
    t.spawn('nginx: master process nginx -g daemon off;', (s) => (got.push(s), true));
    t.spawn('sleep 3600');
    expect(kill(t, ['1'])).toEqual({ out: '', status: 0 });
    expect(kill(t, ['-9', '1'])).toEqual({ out: '', status: 0 });
    expect(kill(t, ['-s', 'QUIT', '1', '2'])).toEqual({ out: '', status: 0 });
    expect(got).toEqual([15, 9, 3]);
    expect(kill(t, ['42'])).toEqual({ out: '', err: "sh: can't kill pid 42: No such process\n", status: 1 });
    expect(kill(t, ['-FOO', '1'])).toMatchObject({ err: "sh: kill: bad signal name 'FOO'\n", status: 1 });
  });
});
