import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupName, RotatingFileSink } from './log-writer.ts';

const MB = 1024 * 1024;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'audit-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(400 * 1024) });

describe('audit log writer', () => {
  it('names backups as lumberjack does, in UTC', () => {
    expect(backupName('/var/log/audit.log', Date.UTC(2026, 11, 3, 8, 40, 5, 7))).toBe('/var/log/audit-2026-12-03T08-40-05.007.log');
  });

  it('appends one line per event to a 0600 file in a new directory', () => {
    const file = path.join(dir, 'sub', 'audit.log');
    const w = new RotatingFileSink(file, { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
    w.write('{"a":1}');
    w.write('{"a":2}');
    w.close();
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('rotates before a line would pass maxsize, and keeps maxbackup backups', () => {
    const file = path.join(dir, 'audit.log');
    let t = Date.UTC(2026, 0, 1);
    const w = new RotatingFileSink(file, { maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, compress: false, now: () => (t += 1000) });
    for (let i = 0; i < 10; i++) w.write(line(i));
    w.close();
    const files = readdirSync(dir).sort();
    // 400 KiB lines: two per MB file; 10 lines = 5 files, of which the current one and 2 backups remain.
    expect(files).toEqual(['audit-2026-01-01T00-00-03.000.log', 'audit-2026-01-01T00-00-04.000.log', 'audit.log']);
    for (const f of files) expect(statSync(path.join(dir, f)).size).toBeLessThanOrEqual(MB);
    const current = readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { i: number }).i);
    expect(current).toEqual([8, 9]);
  });

  it('deletes backups older than maxage days and gzips when compress is on', () => {
    const file = path.join(dir, 'audit.log');
    const now = Date.UTC(2026, 5, 10);
    const old = path.join(dir, 'audit-2026-06-01T00-00-00.000.log');
    const recent = path.join(dir, 'audit-2026-06-09T00-00-00.000.log');
    writeFileSync(old, 'old\n');
    writeFileSync(recent, 'recent\n');
    writeFileSync(path.join(dir, 'unrelated.log'), 'keep\n');
    const w = new RotatingFileSink(file, { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 7, compress: true, now: () => now });
    for (let i = 0; i < 3; i++) w.write(line(i));
    w.close();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(path.join(dir, 'unrelated.log'))).toBe(true);
    const gz = path.join(dir, 'audit-2026-06-10T00-00-00.000.log.gz');
    expect(gunzipSync(readFileSync(gz)).toString().trim().split('\n')).toHaveLength(2);
  });
});

describe('audit log writer failures', () => {
  it('drops lines written after close and reports a failed write instead of throwing', () => {
    const file = path.join(dir, 'audit.log');
    const w = new RotatingFileSink(file, { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
    w.write('{"a":1}');
    w.close();
    w.write('{"late":true}');
    w.flush();
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    const errors: unknown[] = [];
    const broken = new RotatingFileSink(path.join(dir, 'b.log'), { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
    broken.onError = (e) => errors.push(e);
    // The log's directory vanishes: the rotation's rename fails, which is reported, not thrown.
    rmSync(dir, { recursive: true, force: true });
    broken.write('x'.repeat(2 * MB));
    broken.write('y');
    expect(() => broken.flush()).not.toThrow();
    expect(errors.length).toBe(1);
  });
});
