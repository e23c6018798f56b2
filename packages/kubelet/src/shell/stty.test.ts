import { describe, expect, it } from 'vitest';
import { ShellSession } from './interpreter.ts';
import { stty } from './stty.ts';

describe('stty', () => {
  it('prints rows and columns, and changes them', () => {
    const t = { width: 100, height: 30 };
    expect(stty(['size'], t)).toEqual({ out: '30 100\n', status: 0 });
    expect(stty(['rows', '40', 'cols', '120', 'size'], t)).toEqual({ out: '40 120\n', status: 0 });
    expect(stty(['raw', '-echo'], t)).toEqual({ out: '', status: 0 });
    expect(stty(['cols', 'x'], t)).toMatchObject({ err: "stty: invalid number 'x'\n", status: 1 });
  });

  it('fails without a terminal, and a session reads the size its client last sent', () => {
    expect(stty(['size'], undefined)).toEqual({ out: '', err: 'stty: standard input: Not a tty\n', status: 1 });
    const s = new ShellSession({ startedAt: 0, env: {}, hostname: 'box' });
    s.resize({ width: 80, height: 24 });
    expect([...s.run(['stty', 'size'], '')]).toContainEqual({ t: 'out', stream: 'stdout', text: '24 80\n' });
  });
});
