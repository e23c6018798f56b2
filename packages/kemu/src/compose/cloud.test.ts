// The compose cloud's machines: a worker container shaped as the compose file's workers, with the group's kubelet
// flags and the compose project's labels; and a restarted cloud adopting the machines it finds.
import { describe, expect, it } from 'vitest';
import { NodeGroupCloud, parseNodeGroups } from '../node-groups.ts';
import { machineContainer } from './cloud.ts';
import type { ContainerInfo } from './docker-engine.ts';

const self: ContainerInfo = {
  name: 'cloud',
  image: 'kemu/node:latest',
  labels: { 'com.docker.compose.project': 'kemulab42' },
  networks: ['kemulab42_default'],
  mounts: [
    { source: '/home/me/.kemu/compose', destination: '/etc/kubernetes' },
    { source: '/var/lib/docker/volumes/kemulab42_cloud/_data', destination: '/var/run/kemu-cloud' },
  ],
};
const [pool] = parseNodeGroups(['name=pool', 'min=0', 'max=3', 'cpu=4', 'memory=8Gi', 'taints=dedicated=batch:NoSchedule'], 110);

describe('compose cloud', () => {
  it("makes a machine as the compose file's workers: bootstrap flags, the group's capacity, the project's labels", () => {
    const c = machineContainer(self, 'pool-0', pool!, ['--image-pull-delay=1s']);
    expect(c.Image).toBe('kemu/node:latest');
    expect(c.Hostname).toBe('pool-0');
    expect(c.Cmd).toEqual([
      'kubelet',
      '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.kubeconfig',
      '--kubeconfig=/var/lib/kubelet/kubeconfig',
      '--cert-dir=/var/lib/kubelet/pki',
      '--rotate-certificates=true',
      '--proxy-kubeconfig=/etc/kubernetes/kube-proxy.kubeconfig',
      '--client-ca-file=/etc/kubernetes/pki/ca.pem',
      '--anonymous-auth=false',
      '--authentication-token-webhook=true',
      '--authorization-mode=Webhook',
      '--hostname-override=pool-0',
      '--secure-port=10250',
      '--image-pull-delay=1s',
      '--capacity-cpu=4',
      '--capacity-memory=8Gi',
      '--max-pods=110',
      '--node-labels=kemu.dev/node-group=pool',
      '--register-with-taints=dedicated=batch:NoSchedule',
    ]);
    // The host's data dir (not the cloud's view of it), read-only, on the cloud's network under its own name.
    expect(c.HostConfig).toEqual({ Binds: ['/home/me/.kemu/compose:/etc/kubernetes:ro'], Init: true, RestartPolicy: { Name: 'on-failure' }, NetworkMode: 'kemulab42_default' });
    expect(c.NetworkingConfig).toEqual({ EndpointsConfig: { kemulab42_default: { Aliases: ['pool-0'] } } });
    expect(c.Labels).toEqual({ 'com.docker.compose.project': 'kemulab42', 'com.docker.compose.service': 'pool-0', 'com.docker.compose.oneoff': 'False', 'kemu.dev/node-group': 'pool' });
  });

  it('refuses to make machines without the data dir mount', () => {
    expect(() => machineContainer({ ...self, mounts: [] }, 'pool-0', pool!, [])).toThrow('has no /etc/kubernetes mount');
  });

  it('a restarted cloud adopts the machines it finds: they count in the target size and their names are not reused', async () => {
    const started: string[] = [];
    const cloud = new NodeGroupCloud([pool!], { start: async (n) => void started.push(n), remove: async () => undefined });
    cloud.adopt('pool', ['pool-2', 'pool-0']);
    expect(JSON.parse(await cloud.handle('pool', { op: 'get' }))).toEqual({ target: 2, nodes: ['pool-0', 'pool-2'] });
    expect(JSON.parse(await cloud.handle('pool', { op: 'increase', delta: '1' }))).toEqual({ target: 3, nodes: ['pool-0', 'pool-2', 'pool-3'] });
    expect(started).toEqual(['pool-3']);
    await expect(cloud.handle('pool', { op: 'increase', delta: '1' })).rejects.toThrow('size increase too large - desired:4 max:3');
  });
});
