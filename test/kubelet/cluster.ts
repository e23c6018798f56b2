// Test cluster for kubelet integration tests: an apiserver (the real binary once it has a main, otherwise the
// same server in-process on an ephemeral port) plus a RestClient; kubelets are always real processes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { R, StatusError, type KubeObject } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { RestClient } from '@kemu/client';

export interface TestCluster {
  url: string;
  client: RestClient;
  dir: string;
  procs: Proc[];
  close(): Promise<void>;
}

const API_MAIN = path.join(path.dirname(BIN.apiserver), '../src/main.ts');

export async function startCluster(): Promise<TestCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-kubelet-'));
  const procs: Proc[] = [];
  let url: string;
  let closeServer: () => Promise<void> = async () => undefined;
  if (fs.existsSync(API_MAIN)) {
    const port = await freePort();
    const p = startProcess('kube-apiserver', BIN.apiserver, [
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`,
    ]);
    procs.push(p);
    url = `http://127.0.0.1:${port}`;
  } else {
    const { createApiServer } = await import('@kemu/apiserver');
    const { MemoryBackend } = await import('@kemu/store');
    const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger() });
    await srv.start();
    await srv.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
    closeServer = () => srv.close();
  }
  const client = new RestClient({ server: url, qps: 1000, burst: 1000 });
  await waitFor('apiserver ready', async () => (await client.raw('GET', '/readyz')).status === 200, 30_000);
  for (const name of ['default', 'kube-node-lease', 'kube-system']) {
    try {
      await client.create<KubeObject>(R.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
  }
  return {
    url,
    client,
    dir,
    procs,
    async close() {
      await Promise.all(procs.map((p) => p.kill('SIGKILL')));
      await closeServer();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startKubelet(cluster: TestCluster, args: string[]): Proc {
  const p = startProcess('kubelet', BIN.kubelet, [`--master=${cluster.url}`, '--secure-port=0', ...args]);
  cluster.procs.push(p);
  return p;
}
