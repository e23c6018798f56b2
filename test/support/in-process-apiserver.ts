// Test helper: a kube-apiserver in the test's own process (memory store, system namespaces) on a free port,
// for tests that look inside it, with a temp dir holding a kubeconfig for kubectl.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiServer, ensureSystemNamespaces, type ApiServer } from '@kemu/apiserver';
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { writeKubeconfig } from './kubeconfig.ts';

export interface InProcessApiserver {
  srv: ApiServer;
  url: string;
  dir: string;
  kubeconfig: string;
  close(): Promise<void>;
}

export async function startInProcessApiserver(prefix: string): Promise<InProcessApiserver> {
  const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger() });
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const close = async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await srv.start();
    await ensureSystemNamespaces(srv.ctx.registry);
    await srv.app.listen({ port: 0, host: '127.0.0.1' });
  } catch (e) {
    await close();
    throw e;
  }
  const url = `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
  const kubeconfig = writeKubeconfig(path.join(dir, 'kubeconfig'), url, { insecure: true, namespace: 'default', token: 'anything' });
  return { srv, url, dir, kubeconfig, close };
}
