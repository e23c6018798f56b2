// Test helper for the kubectl tests: one kube-apiserver replica and the real kubectl against it, with a
// fresh HOME (so discovery is fetched anew).
import { kubectlEnv, runKubectl, type KubectlResult } from '../support/kubectl.ts';
import { startCluster, type Replica } from './cluster.ts';

export interface KubectlCluster {
  /** A temp dir for the test's own files (removed by stop). */
  dir: string;
  /** The one replica. */
  A: Replica;
  /** kubectl's environment, for a kubectl the test spawns itself. */
  env: NodeJS.ProcessEnv;
  kubectl(...args: string[]): Promise<KubectlResult>;
  stop(): Promise<void>;
}

export async function startKubectlCluster(): Promise<KubectlCluster> {
  const cluster = await startCluster(1);
  const A = cluster.replicas[0] as Replica;
  const env = kubectlEnv(cluster.dir, cluster.kubeconfig(A));
  return { dir: cluster.dir, A, env, kubectl: (...args) => runKubectl(env, args), stop: () => cluster.stop() };
}
