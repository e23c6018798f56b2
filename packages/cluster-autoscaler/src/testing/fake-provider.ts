// An in-memory cloud for tests: groups with a template, a target size the test can read, and calls recorded.
import type { Node } from '@kemu/api';
import type { CloudProvider, NodeGroup } from '../cloudprovider/interface.ts';

export const GROUP_LABEL = 'kemu.dev/node-group';

export interface FakeGroupSpec {
  id: string;
  min: number;
  max: number;
  target: number;
  cpu?: string;
  memory?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
}

export class FakeGroup implements NodeGroup {
  readonly id: string;
  readonly minSize: number;
  readonly maxSize: number;
  target: number;
  readonly deleted: string[] = [];
  constructor(private readonly spec: FakeGroupSpec) {
    this.id = spec.id;
    this.minSize = spec.min;
    this.maxSize = spec.max;
    this.target = spec.target;
  }
  async targetSize(): Promise<number> {
    return this.target;
  }
  async increaseSize(delta: number): Promise<void> {
    if (this.target + delta > this.maxSize) throw new Error(`size increase too large - desired:${this.target + delta} max:${this.maxSize}`);
    this.target += delta;
  }
  async deleteNodes(names: readonly string[]): Promise<void> {
    this.deleted.push(...names);
    this.target -= names.length;
  }
  templateNode(): Node {
    return fakeNode(`template-${this.id}`, { cpu: this.spec.cpu ?? '4', memory: this.spec.memory ?? '8Gi', labels: { ...(this.spec.labels ?? {}), [GROUP_LABEL]: this.id }, taints: this.spec.taints });
  }
}

export class FakeProvider implements CloudProvider {
  readonly name = 'fake';
  readonly groups: FakeGroup[];
  constructor(specs: FakeGroupSpec[]) {
    this.groups = specs.map((s) => new FakeGroup(s));
  }
  nodeGroups(): readonly NodeGroup[] {
    return this.groups;
  }
  nodeGroupForNode(node: Node): NodeGroup | undefined {
    const id = node.metadata.labels?.[GROUP_LABEL];
    return this.groups.find((g) => g.id === id);
  }
  async refresh(): Promise<void> {}
}

export function fakeNode(
  name: string,
  o: { cpu?: string; memory?: string; labels?: Record<string, string>; taints?: FakeGroupSpec['taints']; group?: string; ready?: boolean } = {},
): Node {
  const alloc = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels: { 'kubernetes.io/hostname': name, ...(o.group ? { [GROUP_LABEL]: o.group } : {}), ...(o.labels ?? {}) } },
    spec: { taints: o.taints },
    status: { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}
