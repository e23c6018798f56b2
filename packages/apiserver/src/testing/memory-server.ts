// Test helper: an apiserver on a MemoryBackend, started, with the system namespaces — the fixture of every
// in-process test (fastify.inject or a listen of its own).
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import { createApiServer, type ApiServer } from '../server.ts';

export async function startMemoryApiServer(): Promise<ApiServer> {
  const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger() });
  try {
    await srv.start();
    await ensureSystemNamespaces(srv.ctx.registry);
  } catch (e) {
    await srv.close();
    throw e;
  }
  return srv;
}
