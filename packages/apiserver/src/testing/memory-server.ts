// Test helper: an apiserver on a MemoryBackend, started, with the system namespaces — the fixture of every
// in-process test (fastify.inject or a listen of its own).
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../server.ts';

/** extra: server options beyond the store and logger (admission plugins, --allow-privileged, ...). */
export async function startMemoryApiServer(extra: Partial<Omit<ApiServerOptions, 'backend' | 'logger'>> = {}): Promise<ApiServer> {
  const srv = await createApiServer({ ...extra, backend: new MemoryBackend(), logger: silentLogger() });
  try {
    await srv.start();
    await ensureSystemNamespaces(srv.ctx.registry);
  } catch (e) {
    await srv.close();
    throw e;
  }
  return srv;
}
