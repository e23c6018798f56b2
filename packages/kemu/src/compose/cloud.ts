// `kemu compose cloud`: the compose lab's cloud for the cluster-autoscaler, run as the `cloud` service. It is what
// the supervisor is to `kemu up --node-group`: the same groups (`--node-group` in its compose command), the same
// cloud API on a Unix socket (node-groups.ts), the same cloud config, written with the socket into the volume it
// shares with the cluster-autoscaler. A machine is a worker container made through the Docker Engine API on the
// host's socket, as the compose file's workers (the image, network and data dir of the cloud's own container), with
// the group's kubelet flags; the container carries the compose project's labels, so `kemu compose down`
// (--remove-orphans) removes it. Deleting a machine removes its container and its Node (the cloud-controller-manager's
// part). A restarted cloud adopts the containers it finds, so the target size survives it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags, type FlagSpecs } from '@kemu/base';
import { RestClient, loadClientConfig } from '@kemu/client';
import { serveControl } from '../control.ts';
import { NODE_GROUP_LABEL, NodeGroupCloud, deleteNodeOfMachine, groupKubeletArgs, parseNodeGroups, writeCloudConfig, type NodeGroupSpec } from '../node-groups.ts';
import { DockerEngine, type ContainerCreate, type ContainerInfo } from './docker-engine.ts';
import { UsageError } from '../commands/errors.ts';

export const COMPOSE_CLOUD_FLAGS = {
  'node-group': { type: 'stringArray', default: [], usage: 'A node group, as kemu up --node-group: name=pool,min=1,max=5[,cpu=4][,memory=16Gi][,pods=110][,labels=...][,taints=...] (repeatable)' },
  'max-pods': { type: 'int', default: 110, usage: "A group's pods when it names none" },
  dir: { type: 'string', default: '/var/run/kemu-cloud', usage: 'Where the control socket and cloud-config.yaml go (the volume shared with the cluster-autoscaler)' },
  kubeconfig: { type: 'string', default: '/etc/kubernetes/admin.kubeconfig', usage: 'Credentials to delete the Node of a deleted machine' },
  'docker-socket': { type: 'string', default: '/var/run/docker.sock', usage: "The Docker engine's socket" },
  'container-name': { type: 'string', default: '', usage: "This cloud's own container (whose image, network and /etc/kubernetes mount the machines get); default: the hostname" },
  'kubelet-arg': { type: 'stringArray', default: [], usage: "A flag for every machine's kubelet, e.g. --kubelet-arg=--image-pull-delay=1s (repeatable)" },
  'stop-grace-period': { type: 'int', default: 15, usage: 'Seconds a deleted machine gets to stop before it is killed' },
} as const satisfies FlagSpecs;

/** The mount the compose file gives every kemu container: the data dir (PKI, kubeconfigs) at /etc/kubernetes. */
const CONFIG_DIR = '/etc/kubernetes';

/** A machine's container, shaped as the compose file's worker-N services (bootstrapping with the lab's token). */
export function machineContainer(self: ContainerInfo, name: string, g: NodeGroupSpec, kubeletArgs: readonly string[]): ContainerCreate {
  const dataDir = self.mounts.find((m) => m.destination === CONFIG_DIR)?.source;
  if (!dataDir) throw new Error(`the cloud's container ${self.name} has no ${CONFIG_DIR} mount to give its machines`);
  const network = self.networks[0];
  if (!network) throw new Error(`the cloud's container ${self.name} is on no network`);
  const project = self.labels['com.docker.compose.project'] ?? 'kemu';
  return {
    Image: self.image,
    Hostname: name,
    Cmd: [
      'kubelet',
      `--bootstrap-kubeconfig=${CONFIG_DIR}/bootstrap-kubelet.kubeconfig`,
      '--kubeconfig=/var/lib/kubelet/kubeconfig',
      '--cert-dir=/var/lib/kubelet/pki',
      '--rotate-certificates=true',
      `--proxy-kubeconfig=${CONFIG_DIR}/kube-proxy.kubeconfig`,
      `--client-ca-file=${CONFIG_DIR}/pki/ca.pem`,
      '--anonymous-auth=false',
      '--authentication-token-webhook=true',
      '--authorization-mode=Webhook',
      `--hostname-override=${name}`,
      '--secure-port=10250',
      ...kubeletArgs,
      ...groupKubeletArgs(g),
    ],
    // The compose project's labels: `docker-compose down --remove-orphans` takes the machines with the lab.
    Labels: {
      'com.docker.compose.project': project,
      'com.docker.compose.service': name,
      'com.docker.compose.oneoff': 'False',
      [NODE_GROUP_LABEL]: g.name,
    },
    StopSignal: 'SIGTERM',
    HostConfig: { Binds: [`${dataDir}:${CONFIG_DIR}:ro`], Init: true, RestartPolicy: { Name: 'on-failure' }, NetworkMode: network },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [name] } } },
  };
}

function say(line: string): void {
  process.stdout.write(`[kemu cloud] ${line}\n`);
}

export async function composeCloud(argv: string[]): Promise<number> {
  const f = parseFlags(COMPOSE_CLOUD_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu compose cloud takes no arguments (got ${f._.join(' ')})`);
  let specs: NodeGroupSpec[];
  try {
    specs = parseNodeGroups(f['node-group'], f['max-pods']);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!specs.length) throw new UsageError('kemu compose cloud needs at least one --node-group');
  // A previous run's config would pass the health check before this cloud answers.
  fs.mkdirSync(f.dir, { recursive: true });
  fs.rmSync(path.join(f.dir, 'cloud-config.yaml'), { force: true });
  const engine = new DockerEngine(f['docker-socket']);
  const self = await engine.inspect(f['container-name'] || os.hostname());
  const project = self.labels['com.docker.compose.project'] ?? 'kemu';
  const client = new RestClient(loadClientConfig({ kubeconfig: f.kubeconfig, userAgent: 'kemu-cloud' }));
  const cloud = new NodeGroupCloud(specs, {
    start: async (name, g) => {
      await engine.create(name, machineContainer(self, name, g, f['kubelet-arg']));
      await engine.start(name);
      say(`node group ${g.name}: started ${name} (cpu ${g.cpu}, memory ${g.memory}, pods ${g.pods})`);
    },
    remove: async (name) => {
      await engine.remove(name, f['stop-grace-period']);
      const deleted = await deleteNodeOfMachine(client, name).then(() => 'its Node deleted', (e: unknown) => `its Node not deleted (${(e as Error).message})`);
      say(`node group: ${name} removed, ${deleted}`);
    },
  });
  for (const g of specs) {
    const found = await engine.listByLabels([`com.docker.compose.project=${project}`, `${NODE_GROUP_LABEL}=${g.name}`]);
    if (found.length) say(`node group ${g.name}: adopting ${found.sort().join(', ')}`);
    cloud.adopt(g.name, found);
  }
  const socket = path.join(f.dir, 'kemu.sock');
  const server = await serveControl(socket, async (action, name, body) => {
    if (action !== 'nodegroup') throw new Error(`the compose cloud answers node group calls only (got ${action})`);
    return cloud.handle(name, body);
  });
  await cloud.startMinimum();
  // Written last: the autoscaler's service waits for this file (its health check), so it starts with the machines there.
  const config = writeCloudConfig(f.dir, socket, specs);
  say(`node groups ${specs.map((g) => `${g.name} (${g.min}..${g.max})`).join(', ')}: ${config}, cloud API on ${socket}`);
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
  });
  // The machines stay, as a cloud's do: a restarted cloud adopts them.
  server.close();
  await client.close();
  fs.rmSync(socket, { force: true });
  fs.rmSync(config, { force: true });
  return 0;
}
