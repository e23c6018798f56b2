// Node groups, the lab's "cloud" for the cluster-autoscaler: `kemu up --node-group name=pool,min=1,max=5,cpu=4,...`
// declares them; the supervisor starts each group's min workers (kubelets registering with the template's capacity,
// labels, taints and the kemu.dev/node-group label) and answers the autoscaler's cloud calls on its control socket
// (POST /nodegroup/<name>: get, increase, delete). The target size lives here, so a new autoscaler leader reads back
// what the last one asked for instead of asking again.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { R, tryParseQuantity } from '@kemu/api';
import { isNotFound, type RestClient } from '@kemu/client';

export const NODE_GROUP_LABEL = 'kemu.dev/node-group';
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export interface NodeGroupSpec {
  name: string;
  min: number;
  max: number;
  cpu: string;
  memory: string;
  pods: number;
  labels: Record<string, string>;
  /** "key=value:Effect" or "key:Effect". */
  taints: string[];
}

export class NodeGroupError extends Error {}

const KEYS = ['name', 'min', 'max', 'cpu', 'memory', 'pods', 'labels', 'taints'] as const;

/**
 * --node-group values. The flag parser splits on commas, so the items are re-assembled: `name=` starts a group, and
 * an item whose key is not a known one continues the list before it (`labels=a=1,b=2`, `taints=x=y:NoSchedule,z:NoExecute`).
 */
export function parseNodeGroups(items: readonly string[], defaultPods: number): NodeGroupSpec[] {
  const raw: Record<string, string[]>[] = [];
  let listKey: 'labels' | 'taints' | undefined;
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq) : item;
    const value = eq > 0 ? item.slice(eq + 1) : '';
    if (key === 'name') {
      raw.push({ name: [value] });
      listKey = undefined;
      continue;
    }
    const cur = raw.at(-1);
    if (!cur) throw new NodeGroupError(`--node-group ${item}: each group starts with name=<group>`);
    if ((KEYS as readonly string[]).includes(key)) {
      if (cur[key] && key !== 'labels' && key !== 'taints') throw new NodeGroupError(`--node-group ${cur.name?.[0]}: ${key} given twice`);
      cur[key] = [...(cur[key] ?? []), value];
      listKey = key === 'labels' || key === 'taints' ? key : undefined;
    } else if (listKey) cur[listKey] = [...(cur[listKey] ?? []), item];
    else throw new NodeGroupError(`--node-group ${cur.name?.[0]}: unknown key "${key}" (want ${KEYS.join(', ')})`);
  }
  const names = new Set<string>();
  return raw.map((r) => {
    const name = r.name?.[0] ?? '';
    if (!DNS1123_LABEL.test(name) || name.length > 40) throw new NodeGroupError(`--node-group name "${name}": want a lowercase RFC 1123 label of at most 40 characters`);
    if (names.has(name)) throw new NodeGroupError(`--node-group ${name} given twice`);
    names.add(name);
    const int = (k: string, dflt?: number): number => {
      const v = r[k]?.[0];
      if (v === undefined && dflt !== undefined) return dflt;
      if (v === undefined || !/^\d+$/.test(v)) throw new NodeGroupError(`--node-group ${name}: ${k} must be a non-negative integer${v === undefined ? ' (required)' : ` (got "${v}")`}`);
      return Number(v);
    };
    const min = int('min');
    const max = int('max');
    if (max < min || max < 1) throw new NodeGroupError(`--node-group ${name}: max (${max}) must be at least min (${min}) and at least 1`);
    const qty = (k: string, dflt: string) => {
      const v = r[k]?.[0] ?? dflt;
      if (tryParseQuantity(v) === undefined) throw new NodeGroupError(`--node-group ${name}: ${k} "${v}" is not a quantity`);
      return v;
    };
    const labels: Record<string, string> = {};
    for (const l of r.labels ?? []) {
      const i = l.indexOf('=');
      if (i <= 0) throw new NodeGroupError(`--node-group ${name}: label "${l}" is not key=value`);
      labels[l.slice(0, i)] = l.slice(i + 1);
    }
    const taints = r.taints ?? [];
    for (const t of taints) {
      const effect = t.slice(t.lastIndexOf(':') + 1);
      if (!t.includes(':') || !EFFECTS.includes(effect)) throw new NodeGroupError(`--node-group ${name}: taint "${t}" is not key[=value]:${EFFECTS.join('|')}`);
    }
    return { name, min, max, cpu: qty('cpu', '4'), memory: qty('memory', '16Gi'), pods: int('pods', defaultPods), labels, taints };
  });
}

/** The kubelet flags that make a worker one of the group's machines. */
export function groupKubeletArgs(g: NodeGroupSpec): string[] {
  const labels = { ...g.labels, [NODE_GROUP_LABEL]: g.name };
  return [
    `--capacity-cpu=${g.cpu}`,
    `--capacity-memory=${g.memory}`,
    `--max-pods=${g.pods}`,
    `--node-labels=${Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',')}`,
    ...(g.taints.length ? [`--register-with-taints=${g.taints.join(',')}`] : []),
  ];
}

/** The cluster-autoscaler's --cloud-config: where the cloud is, and each group's template. */
export function writeCloudConfig(dataDir: string, controlSocket: string, groups: readonly NodeGroupSpec[]): string {
  const file = path.join(dataDir, 'cloud-config.yaml');
  const doc = {
    controlSocket,
    nodeGroupLabel: NODE_GROUP_LABEL,
    nodeGroups: groups.map((g) => ({
      name: g.name,
      minSize: g.min,
      maxSize: g.max,
      template: {
        cpu: g.cpu,
        memory: g.memory,
        pods: String(g.pods),
        labels: g.labels,
        taints: g.taints.map((t) => {
          const effect = t.slice(t.lastIndexOf(':') + 1);
          const kv = t.slice(0, t.lastIndexOf(':'));
          const i = kv.indexOf('=');
          return i < 0 ? { key: kv, effect } : { key: kv.slice(0, i), value: kv.slice(i + 1), effect };
        }),
      },
    })),
  };
  fs.writeFileSync(file, `# Written by kemu up: the kemu cloud provider's node groups (docs/cluster-autoscaler.md).\n${stringify(doc)}`);
  return file;
}

/**
 * Deletes the Node of a machine the cloud deleted, as a cloud-controller-manager's node lifecycle controller does
 * when the instance is gone (the autoscaler's ClusterRole cannot delete Nodes). One already gone is fine.
 */
export async function deleteNodeOfMachine(client: RestClient, name: string): Promise<void> {
  try {
    await client.delete(R.nodes, undefined, name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** What the cloud needs from the supervisor: start a group machine, stop and forget one. */
export interface Machines {
  start(name: string, group: NodeGroupSpec): Promise<void>;
  remove(name: string): Promise<void>;
}

interface GroupState {
  spec: NodeGroupSpec;
  /** Machines asked for and not deleted (started or starting). */
  members: string[];
  next: number;
}

export class NodeGroupCloud {
  private readonly groups = new Map<string, GroupState>();
  /** Serializes calls: two overlapping increases must not both see the old size. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    specs: readonly NodeGroupSpec[],
    private readonly machines: Machines,
  ) {
    for (const s of specs) this.groups.set(s.name, { spec: s, members: [], next: 0 });
  }

  specs(): NodeGroupSpec[] {
    return [...this.groups.values()].map((g) => g.spec);
  }

  /** Machines found running (a restarted compose cloud finds its containers): members again, their names not reused. */
  adopt(group: string, names: readonly string[]): void {
    const g = this.groups.get(group);
    if (!g) return;
    for (const n of names) {
      if (!g.members.includes(n)) g.members.push(n);
      const i = Number(n.slice(group.length + 1));
      if (n.startsWith(`${group}-`) && Number.isInteger(i)) g.next = Math.max(g.next, i + 1);
    }
    g.members.sort((a, b) => Number(a.slice(group.length + 1)) - Number(b.slice(group.length + 1)));
  }

  /** Starts every group's min machines (kemu up). */
  async startMinimum(): Promise<string[]> {
    const out: string[] = [];
    for (const g of this.groups.values()) for (let i = g.members.length; i < g.spec.min; i++) out.push(await this.add(g));
    return out;
  }

  private async add(g: GroupState): Promise<string> {
    const name = `${g.spec.name}-${g.next++}`;
    g.members.push(name);
    await this.machines.start(name, g.spec);
    return name;
  }

  /** One cloud call; resolves with the group's state as JSON. */
  handle(group: string | undefined, body: Record<string, string>): Promise<string> {
    const run = this.chain.then(() => this.call(group, body));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async call(group: string | undefined, body: Record<string, string>): Promise<string> {
    const g = group ? this.groups.get(group) : undefined;
    if (!g) throw new NodeGroupError(`node group "${group ?? ''}" not found (known: ${[...this.groups.keys()].join(', ') || 'none'})`);
    const op = body.op ?? 'get';
    if (op === 'increase') {
      const delta = Number(body.delta);
      if (!Number.isInteger(delta) || delta <= 0) throw new NodeGroupError(`size increase must be positive, got "${body.delta}"`);
      if (g.members.length + delta > g.spec.max) throw new NodeGroupError(`size increase too large - desired:${g.members.length + delta} max:${g.spec.max}`);
      for (let i = 0; i < delta; i++) await this.add(g);
    } else if (op === 'delete') {
      const names = (body.nodes ?? '').split(',').filter(Boolean);
      for (const n of names) if (!g.members.includes(n)) throw new NodeGroupError(`node ${n} does not belong to node group ${g.spec.name}`);
      if (g.members.length - names.length < g.spec.min) throw new NodeGroupError('min size reached, nodes will not be deleted');
      for (const n of names) {
        await this.machines.remove(n);
        g.members = g.members.filter((m) => m !== n);
      }
    } else if (op !== 'get') throw new NodeGroupError(`unknown node group operation "${op}" (want get, increase, delete)`);
    return JSON.stringify({ target: g.members.length, nodes: g.members });
  }
}
