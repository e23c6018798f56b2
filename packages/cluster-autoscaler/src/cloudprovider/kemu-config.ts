// The kemu cloud provider's --cloud-config (YAML or JSON, written by `kemu up --node-group`): where the "cloud" (the
// lab supervisor's control socket) is, and each node group's bounds and node template.
import { parse as parseYaml } from 'yaml';
import type { Taint, TaintEffect } from '@kemu/api';

export const DEFAULT_GROUP_LABEL = 'kemu.dev/node-group';

export interface TemplateSpec {
  cpu: string;
  memory: string;
  pods: string;
  ephemeralStorage: string;
  labels: Record<string, string>;
  taints: Taint[];
}

export interface KemuGroupConfig {
  name: string;
  minSize: number;
  maxSize: number;
  template: TemplateSpec;
}

export interface KemuCloudConfig {
  /** The supervisor's control socket (HTTP over a Unix socket). */
  controlSocket: string;
  /** The Node label naming a node's group. */
  nodeGroupLabel: string;
  nodeGroups: KemuGroupConfig[];
}

export class CloudConfigError extends Error {}

const EFFECTS: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function obj(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CloudConfigError(`${where}: want an object`);
  return v as Record<string, unknown>;
}
function str(v: unknown, where: string, dflt?: string): string {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || v === '') throw new CloudConfigError(`${where}: want a string`);
  return v;
}
function int(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new CloudConfigError(`${where}: want a non-negative integer`);
  return v;
}

export function parseCloudConfig(text: string): KemuCloudConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new CloudConfigError(`cannot parse the cloud config: ${(e as Error).message}`);
  }
  const root = obj(doc, 'cloud config');
  const groups = root.nodeGroups;
  if (!Array.isArray(groups)) throw new CloudConfigError('nodeGroups: want a list');
  const nodeGroups = groups.map((g, i): KemuGroupConfig => {
    const where = `nodeGroups[${i}]`;
    const o = obj(g, where);
    const t = obj(o.template ?? {}, `${where}.template`);
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(t.labels ?? {}, `${where}.template.labels`))) labels[k] = str(v, `${where}.template.labels.${k}`);
    const taints = (Array.isArray(t.taints) ? t.taints : []).map((x: unknown, j: number): Taint => {
      const tw = `${where}.template.taints[${j}]`;
      const to = obj(x, tw);
      const effect = str(to.effect, `${tw}.effect`);
      if (!EFFECTS.includes(effect)) throw new CloudConfigError(`${tw}.effect: unsupported taint effect "${effect}"`);
      return { key: str(to.key, `${tw}.key`), ...(to.value !== undefined ? { value: str(to.value, `${tw}.value`) } : {}), effect: effect as TaintEffect };
    });
    const minSize = int(o.minSize, `${where}.minSize`);
    const maxSize = int(o.maxSize, `${where}.maxSize`);
    if (maxSize < minSize) throw new CloudConfigError(`${where}: maxSize ${maxSize} is below minSize ${minSize}`);
    return {
      name: str(o.name, `${where}.name`),
      minSize,
      maxSize,
      template: {
        cpu: str(t.cpu, `${where}.template.cpu`, '4'),
        memory: str(t.memory, `${where}.template.memory`, '16Gi'),
        pods: str(t.pods, `${where}.template.pods`, '110'),
        ephemeralStorage: str(t.ephemeralStorage, `${where}.template.ephemeralStorage`, '100Gi'),
        labels,
        taints,
      },
    };
  });
  return { controlSocket: str(root.controlSocket, 'controlSocket'), nodeGroupLabel: str(root.nodeGroupLabel, 'nodeGroupLabel', DEFAULT_GROUP_LABEL), nodeGroups };
}
