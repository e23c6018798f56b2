// Test fixture: the in-process apiserver of a test file (startMemoryApiServer) started before its tests and
// closed after them, with the inject call bound to it.
import { afterAll, beforeAll } from 'vitest';
import type { ApiServer, ApiServerOptions } from '../server.ts';
import { injectClient, type Body } from './inject-client.ts';
import { startMemoryApiServer } from './memory-server.ts';

export function memoryServerFixture(extra: Partial<Omit<ApiServerOptions, 'backend' | 'logger'>> = {}) {
  let srv: ApiServer | undefined;
  beforeAll(async () => {
    srv = await startMemoryApiServer(extra);
  });
  afterAll(async () => srv?.close());
  const server = (): ApiServer => {
    if (!srv) throw new Error('the apiserver starts in beforeAll');
    return srv;
  };
  return { server, call: injectClient<Body>(server) };
}
