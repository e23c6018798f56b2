import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenFile, parseCsv, TokenFileError, tokenFileAuthenticator } from './token-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-tokenfile-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('token file', () => {
  it('reads token,user,uid,"groups" records; quoted groups split on commas', async () => {
    const warnings: string[] = [];
    const tokens = loadTokenFile(file('ok.csv', 'abc123,jane,uid-1,"dev,ops"\n\nxyz,bob,uid-2\n,empty,uid-3\nxyz,bob2,uid-4\n'), { warn: (m) => warnings.push(m) });
    const a = tokenFileAuthenticator(tokens);
    expect((await a.authenticateToken('abc123'))?.user).toEqual({ username: 'jane', uid: 'uid-1', groups: ['dev', 'ops'] });
    expect((await a.authenticateToken('xyz'))?.user).toEqual({ username: 'bob2', uid: 'uid-4', groups: [] });
    expect(await a.authenticateToken('nope')).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringContaining("empty token has been found in token file"),
      expect.stringContaining("duplicate token has been found in token file"),
    ]);
  });

  it('refuses a record with fewer than 3 columns, with Kubernetes\' message', () => {
    const p = file('short.csv', 'abc,jane\n');
    expect(() => loadTokenFile(p)).toThrow(TokenFileError);
    expect(() => loadTokenFile(p)).toThrow(`token file '${p}' must have at least 3 columns (token, user name, user uid), found 2`);
  });

  it('refuses a missing file and bad quoting as Go does', () => {
    expect(() => loadTokenFile(join(dir, 'missing.csv'))).toThrow(`open ${join(dir, 'missing.csv')}: no such file or directory`);
    expect(() => parseCsv('ab"c,u,1\n')).toThrow('bare " in non-quoted-field');
    expect(() => parseCsv('"abc"x,u,1\n')).toThrow('extraneous or missing " in quoted-field');
    expect(parseCsv('"a ""q""",b,\r\n')).toEqual([['a "q"', 'b', '']]);
  });
});
