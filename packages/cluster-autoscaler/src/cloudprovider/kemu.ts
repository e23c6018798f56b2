// The "kemu" cloud provider: node groups whose machines are emulated kubelets the lab supervisor starts and stops.
// The supervisor plays the cloud API (POST /nodegroup/<name> on its control socket): it owns each group's target
// size, so a new autoscaler leader reads back what its predecessor asked for.
import http from 'node:http';
import type { Node } from '@kemu/api';
import type { NodeGroupSpec } from '../options.ts';
import type { CloudProvider, NodeGroup } from './interface.ts';
import type { KemuCloudConfig, KemuGroupConfig } from './kemu-config.ts';

export interface CloudApi {
  /** One request to the cloud: op get|increase|delete; resolves with the group's state after it. */
  call(group: string, body: Record<string, string>): Promise<{ target: number; nodes: string[] }>;
}

/** The supervisor's control channel (HTTP over its Unix socket; JSON in the reply's message). */
export function socketCloudApi(socketPath: string, timeoutMs = 60_000): CloudApi {
  return {
    call: (group, body) =>
      new Promise((resolve, reject) => {
        const data = JSON.stringify(body);
        const req = http.request(
          { socketPath, method: 'POST', path: `/nodegroup/${encodeURIComponent(group)}`, timeout: timeoutMs, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => {
              try {
                const reply = JSON.parse(text) as { message?: unknown; error?: unknown };
                if (res.statusCode !== 200) return reject(new Error(typeof reply.error === 'string' ? reply.error : `cloud answered ${res.statusCode}`));
                const state = JSON.parse(String(reply.message)) as { target?: unknown; nodes?: unknown };
                if (typeof state.target !== 'number' || !Array.isArray(state.nodes)) return reject(new Error('cloud answered without a target size'));
                resolve({ target: state.target, nodes: state.nodes.map(String) });
              } catch (e) {
                reject(new Error(`cloud answered something that is not JSON: ${(e as Error).message}`));
              }
            });
          },
        );
        req.on('timeout', () => req.destroy(new Error(`the cloud did not answer within ${timeoutMs}ms`)));
        req.on('error', (e) => reject(new Error(`cannot reach the kemu cloud at ${socketPath}: ${e.message}`)));
        req.end(data);
      }),
  };
}

class KemuNodeGroup implements NodeGroup {
  readonly id: string;
  private target = -1;
  constructor(
    private readonly cfg: KemuGroupConfig,
    readonly minSize: number,
    readonly maxSize: number,
    private readonly label: string,
    private readonly api: CloudApi,
  ) {
    this.id = cfg.name;
  }
  async refresh(): Promise<void> {
    this.target = (await this.api.call(this.id, { op: 'get' })).target;
  }
  async targetSize(): Promise<number> {
    if (this.target < 0) await this.refresh();
    return this.target;
  }
  async increaseSize(delta: number): Promise<void> {
    if (delta <= 0) throw new Error('size increase must be positive');
    const size = await this.targetSize();
    if (size + delta > this.maxSize) throw new Error(`size increase too large - desired:${size + delta} max:${this.maxSize}`);
    this.target = (await this.api.call(this.id, { op: 'increase', delta: String(delta) })).target;
  }
  async deleteNodes(names: readonly string[]): Promise<void> {
    const size = await this.targetSize();
    if (size - names.length < this.minSize) throw new Error('min size reached, nodes will not be deleted');
    this.target = (await this.api.call(this.id, { op: 'delete', nodes: names.join(',') })).target;
  }
  templateNode(): Node {
    const t = this.cfg.template;
    const resources = { cpu: t.cpu, memory: t.memory, pods: t.pods, 'ephemeral-storage': t.ephemeralStorage };
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: `template-node-for-${this.id}`,
        labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', ...t.labels, [this.label]: this.id },
      },
      spec: { taints: t.taints.length ? t.taints.map((x) => ({ ...x })) : undefined },
      status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True' }] },
    };
  }
}

export class KemuCloudProvider implements CloudProvider {
  readonly name = 'kemu';
  private readonly groups: KemuNodeGroup[];

  /** `nodes` (--nodes) narrows to the named groups and sets their bounds; empty: every group of the config. */
  constructor(
    private readonly cfg: KemuCloudConfig,
    nodes: readonly NodeGroupSpec[],
    api: CloudApi = socketCloudApi(cfg.controlSocket),
  ) {
    const byName = new Map(cfg.nodeGroups.map((g) => [g.name, g]));
    for (const n of nodes) if (!byName.has(n.name)) throw new Error(`node group ${n.name} from --nodes is not in the cloud config (known: ${[...byName.keys()].join(', ') || 'none'})`);
    const chosen = nodes.length ? nodes.map((n) => ({ g: byName.get(n.name) as KemuGroupConfig, min: n.min, max: n.max })) : cfg.nodeGroups.map((g) => ({ g, min: g.minSize, max: g.maxSize }));
    this.groups = chosen.map((c) => new KemuNodeGroup(c.g, c.min, c.max, cfg.nodeGroupLabel, api));
  }

  nodeGroups(): readonly NodeGroup[] {
    return this.groups;
  }
  nodeGroupForNode(node: Node): NodeGroup | undefined {
    const id = node.metadata.labels?.[this.cfg.nodeGroupLabel];
    return id === undefined ? undefined : this.groups.find((g) => g.id === id);
  }
  async refresh(): Promise<void> {
    await Promise.all(this.groups.map((g) => g.refresh()));
  }
}
