// Test cluster for kubelet integration tests: a kube-apiserver process plus a RestClient; kubelets are real
// processes too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { R, StatusError, type KubeObject } from '@kemu/api';
import { BIN, startProcess, type Proc } from '@kemu/base/testing/processes';
import { RestClient } from '@kemu/client';
import { startApiserver } from '../support/apiserver.ts';

export interface TestCluster {
  url: string;
  client: RestClient;
  dir: string;
  procs: Proc[];
  close(): Promise<void>;
}

export async function startCluster(): Promise<TestCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-kubelet-'));
  const { proc, url } = await startApiserver('kube-apiserver', path.join(dir, 'state.db'));
  const procs: Proc[] = [proc];
  const client = new RestClient({ server: url, qps: 1000, burst: 1000 });
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
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startKubelet(cluster: TestCluster, args: string[]): Proc {
  const p = startProcess('kubelet', BIN.kubelet, [`--master=${cluster.url}`, '--secure-port=0', ...args]);
  cluster.procs.push(p);
  return p;
}
