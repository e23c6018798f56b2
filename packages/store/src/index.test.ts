import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EndpointError, MemoryBackend, SqliteBackend, openBackend } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-store-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openBackend', () => {
  it('memory:// opens a MemoryBackend', async () => {
    const b = await openBackend('memory://');
    expect(b).toBeInstanceOf(MemoryBackend);
    await b.close();
  });

  it('sqlite:///abs/path opens (and creates) the file, shared by a second open', async () => {
    const endpoint = `sqlite://${join(dir, 'sub', 'state.db')}?_synchronous=FULL`;
    const a = await openBackend(endpoint);
    expect(a).toBeInstanceOf(SqliteBackend);
    const kv = await a.create('/registry/x', '1');
    const b = await openBackend(endpoint);
    expect(await b.get('/registry/x')).toEqual(kv);
    expect(await b.healthy()).toBe(true);
    await a.close();
    await b.close();
  });

  it('refuses unsupported endpoints', async () => {
    await expect(openBackend('https://127.0.0.1:2379')).rejects.toBeInstanceOf(EndpointError);
  });
});
