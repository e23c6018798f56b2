// Test helper: a kube-scheduler or kube-controller-manager replica that reaches the apiserver only through
// a CountingProxy of its own (its kubeconfig names the proxy), so a test can count, hold and attribute
// every request it makes. Restarting the replica keeps its proxy.
import path from 'node:path';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { writeKubeconfig } from '../support/kubeconfig.ts';
import { CountingProxy } from './counting-proxy.ts';

export const LEADER_ELECTED = {
  'controller-manager': { bin: BIN.controllerManager, lease: 'kube-controller-manager' },
  scheduler: { bin: BIN.scheduler, lease: 'kube-scheduler' },
} as const;
export type LeaderElectedKind = keyof typeof LEADER_ELECTED;

export interface ProxiedComponent {
  kind: LeaderElectedKind;
  name: string;
  proxy: CountingProxy;
  proc: Proc;
  /** Starts the process again (after it exited) through the same proxy; resolves once it runs its elector. */
  restart(): Promise<Proc>;
  stop(): Promise<void>;
}

const FOLLOWING = 'attempting to acquire leader lease';

/** Starts `name` (its --hostname-override) with `flags`, through a new proxy to `apiserver`; kubeconfig in `dir`. */
export async function startProxied(
  kind: LeaderElectedKind,
  name: string,
  apiserver: string,
  dir: string,
  flags: string[],
  proxyOpts: { stripLeaseHeader?: boolean } = {},
): Promise<ProxiedComponent> {
  const proxy = await new CountingProxy(apiserver, proxyOpts).start();
  const kubeconfig = writeKubeconfig(path.join(dir, `kubeconfig-${name}`), proxy.url);
  const launch = async (): Promise<Proc> => {
    const p = startProcess(name, LEADER_ELECTED[kind].bin, [`--kubeconfig=${kubeconfig}`, '--secure-port=0', `--hostname-override=${name}`, ...flags]);
    await waitFor(`${name} running its elector`, () => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`${name} exited: ${p.output().slice(-2000)}`);
      return p.output().includes(FOLLOWING);
    }, 60_000, 20);
    return p;
  };
  const c: ProxiedComponent = {
    kind,
    name,
    proxy,
    proc: await launch().catch(async (e: unknown) => {
      await proxy.stop();
      throw e;
    }),
    async restart() {
      c.proc = await launch();
      return c.proc;
    },
    async stop() {
      await c.proc.kill('SIGKILL'); // also ends a process left stopped
      await proxy.stop();
    },
  };
  return c;
}
