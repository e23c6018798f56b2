// `kemu join` on the supervisor's side: one more emulated worker in the running lab, on the next free worker address,
// supervised like the others. With a token of its own it gets DIR/bootstrap-kubelet-<name>.kubeconfig; without
// bootstrapping (kubeletBootstrapMode) kemu issues its certificate first, as for the lab's own workers.
import fs from 'node:fs';
import path from 'node:path';
import { planWorker, type ComponentSpec, type TopologyOptions } from './topology.ts';
import { labAddresses } from './addresses.ts';
import { ensureLabPki, labPkiFiles, prepareBootstrappingKubelet, writeIfChanged } from './lab-pki.ts';
import { bootstrapKubeconfigYaml, readBootstrapToken } from './lab-bootstrap.ts';
import { parseBootstrapToken } from './bootstrap-token.ts';
import type { Supervisor } from './supervisor.ts';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface JoinContext {
  topology: TopologyOptions;
  /** Ports already handed out ("host:port"). */
  taken: Set<string>;
  sup: Supervisor;
  /** The server the components reach (the balancer). */
  server: string;
  /** The balancer's and apiservers' addresses (SANs, should kemu have to re-run the PKI for a pre-issued cert). */
  lbAddress: string;
  apiserverAddresses: string[];
}

export class JoinError extends Error {}

/** The first worker slot whose address no component uses. */
function freeWorkerIndex(ctx: JoinContext): number {
  const used = new Set(ctx.sup.records().map((r) => r.address));
  const addr = labAddresses(ctx.topology.address);
  for (let i = 0; ; i++) {
    const a = addr.of('worker', i); // throws an AddressError past the range's end
    if (!used.has(a)) return i;
  }
}

/** Plans, registers and starts the worker; resolves with its spec once it is spawned. */
export async function joinWorker(ctx: JoinContext, wantedName: string | undefined, token: string | undefined, kubeletArgs: readonly string[] = []): Promise<ComponentSpec> {
  const i = freeWorkerIndex(ctx);
  const name = wantedName || `worker-${i}`;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name))
    throw new JoinError(`invalid node name "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
  if (ctx.sup.names().includes(name)) throw new JoinError(`a component named "${name}" is already in the lab`);
  const files = labPkiFiles(ctx.topology.dataDir);
  let bootstrapKubeconfig: string | undefined;
  if (ctx.topology.kubeletBootstrap) {
    prepareBootstrappingKubelet(ctx.topology.dataDir, name);
    if (token) {
      parseBootstrapToken(token);
      if (token !== readBootstrapToken(files.bootstrapKubeconfig)) {
        bootstrapKubeconfig = path.join(ctx.topology.dataDir, `bootstrap-kubelet-${name}.kubeconfig`);
        writeIfChanged(bootstrapKubeconfig, bootstrapKubeconfigYaml(ctx.server, fs.readFileSync(files.ca, 'utf8'), token));
      }
    }
  } else {
    await ensureLabPki({ dataDir: ctx.topology.dataDir, server: ctx.server, lbAddress: ctx.lbAddress, apiserverAddresses: ctx.apiserverAddresses, nodes: [name] });
  }
  const spec = await planWorker(ctx.topology, i, name, ctx.taken, bootstrapKubeconfig, kubeletArgs);
  ctx.sup.add(spec);
  ctx.sup.start(name);
  return spec;
}
