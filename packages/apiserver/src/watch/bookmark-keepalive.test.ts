// Bookmarks as the keep-alive of a quiet watch: the client's reflector presumes a watch with no bytes
// for its idle deadline dead and reconnects; the server's bookmark interval must keep it alive, even
// when nothing at all is written to the store.
import { R, type KubeObject } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { listWatchFor, Reflector, RestClient } from '@kemu/client';
import { MemoryBackend } from '@kemu/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import { createApiServer, type ApiServer } from '../server.ts';
import { DEFAULT_WATCH_BOOKMARK_INTERVAL_MS } from './hub.ts';

const BOOKMARK_MS = 100;
const CLIENT_IDLE_MS = 1_000; // generous: a loaded machine can stall an event loop for a few hundred ms

let srv: ApiServer;
let client: RestClient;

beforeAll(async () => {
  srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), bookmarkIntervalMs: BOOKMARK_MS });
  await srv.start();
  await ensureSystemNamespaces(srv.ctx.registry);
  const url = await srv.app.listen({ host: '127.0.0.1', port: 0 });
  client = new RestClient({ server: url, qps: -1 });
});
afterAll(async () => {
  await client?.close();
  await srv?.close();
});

describe('bookmark keep-alive', () => {
  it('the default interval sits well under the client reflector 15 s dead-watch deadline', () => {
    expect(DEFAULT_WATCH_BOOKMARK_INTERVAL_MS * 3).toBeLessThanOrEqual(15_000);
  });

  it('a quiet watch with bookmarks outlives the client idle deadline without reconnecting', async () => {
    const ac = new AbortController();
    let bookmarks = 0;
    let firstAt = 0;
    let enough: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (enough = resolve));
    const reflector = new Reflector<KubeObject>(
      listWatchFor(client, R.configmaps, { namespace: 'default' }),
      {
        replace: () => undefined,
        add: () => undefined,
        update: () => undefined,
        delete: () => undefined,
        bookmark: () => {
          bookmarks++;
          if (bookmarks === 1) firstAt = performance.now();
          // Three idle deadlines of silence apart from bookmarks.
          if (performance.now() - firstAt > 3 * CLIENT_IDLE_MS) enough();
        },
      },
      { watchIdleTimeoutMs: CLIENT_IDLE_MS },
    );
    const running = reflector.run(ac.signal);
    await done;
    ac.abort();
    await running;
    expect(reflector.stats.idleTimeouts).toBe(0);
    expect(reflector.stats.watches).toBe(1);
    expect(reflector.stats.lists).toBe(1);
    expect(bookmarks).toBeGreaterThanOrEqual(3);
  }, 20_000);
});
