// What a container sees at its volumeMounts, as the kubelet's volume plugins write it: a configMap's and a
// secret's keys (or the `items` chosen, at their `path`s; binaryData and secret data decoded), downwardAPI
// fields (labels and annotations as `k="v"` lines), projected sources merged (the kube-api-access volume's
// token, ca.crt and namespace), and an empty directory for emptyDir and other sources. A subPath mounts one
// file or directory of the volume. Modes (defaultMode, items' mode) are kept beside the contents.
import { R, StatusError, type ConfigMap, type Container, type KubeObject, type Pod, type Secret } from '@kemu/api';
import type { KubeApi } from '../api.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Obj => x !== undefined) : []);

/** One file of a volume: its path inside the volume, contents and permission bits. */
export interface VolumeFile {
  content: Buffer;
  mode: number;
}

/** A mounted volume as the container sees it: the files under `mountPath` (none: an empty directory). */
export interface Mount {
  mountPath: string;
  /** Absolute path → file. */
  files: Map<string, VolumeFile>;
  /** Its contents follow the source (not for subPath mounts: the kubelet never updates those). */
  live: boolean;
  /** A subPath naming one file of the volume: mountPath is that file. */
  single: boolean;
}

/** The projected token of a pod's volume, if the node has one (pods/tokens.ts). */
export type TokenLookup = (volume: string) => string | undefined;

const DEFAULT_MODE = 0o644;

async function read<T extends KubeObject>(client: Pick<KubeApi, 'get'>, r: typeof R.configmaps, ns: string, name: string): Promise<T | undefined> {
  try {
    return await client.get<T>(r, ns, name);
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return undefined;
    throw e;
  }
}

/** key → bytes of a ConfigMap (data, binaryData) or a Secret (data, base64). */
function keysOf(o: ConfigMap | Secret | undefined, secret: boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!o) return out;
  const data = obj((o as Obj).data) ?? {};
  for (const [k, v] of Object.entries(data)) out.set(k, secret ? Buffer.from(str(v), 'base64') : Buffer.from(str(v), 'utf8'));
  for (const [k, v] of Object.entries(obj((o as Obj).binaryData) ?? {})) out.set(k, Buffer.from(str(v), 'base64'));
  return out;
}

/** The keys projected: all of them by name, or the items chosen at their paths. */
function project(keys: Map<string, Buffer>, items: Obj[], mode: number, into: Map<string, VolumeFile>): void {
  if (items.length === 0) {
    for (const [k, content] of keys) into.set(k, { content, mode });
    return;
  }
  for (const it of items) {
    const content = keys.get(str(it.key));
    if (content !== undefined) into.set(str(it.path) || str(it.key), { content, mode: typeof it.mode === 'number' ? it.mode : mode });
  }
}

/** metadata.labels / .annotations as the downward API writes them: sorted `k="v"` lines, no final newline. */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify((m ?? {})[k] ?? '')}`)
    .join('\n');
}

/** A downwardAPI fieldRef's value; undefined for a field the volume plugin does not write. */
export function downwardField(pod: Pod, fieldPath: string): string | undefined {
  const md = pod.metadata;
  if (fieldPath === 'metadata.name') return md.name ?? '';
  if (fieldPath === 'metadata.namespace') return md.namespace ?? '';
  if (fieldPath === 'metadata.uid') return md.uid ?? '';
  if (fieldPath === 'metadata.labels') return formatMap(md.labels);
  if (fieldPath === 'metadata.annotations') return formatMap(md.annotations);
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (m) return (m[1] === 'labels' ? md.labels : md.annotations)?.[m[2] ?? ''] ?? '';
  return undefined;
}

function downward(pod: Pod, items: Obj[], mode: number, into: Map<string, VolumeFile>): void {
  for (const it of items) {
    const v = downwardField(pod, str(obj(it.fieldRef)?.fieldPath));
    if (v !== undefined) into.set(str(it.path), { content: Buffer.from(v, 'utf8'), mode: typeof it.mode === 'number' ? it.mode : mode });
  }
}

/** A volume's files by path inside it; undefined for a volume that starts empty (emptyDir, a claim, hostPath). */
export async function volumeFiles(client: Pick<KubeApi, 'get'>, pod: Pod, volume: Obj, token: TokenLookup): Promise<Map<string, VolumeFile> | undefined> {
  const ns = pod.metadata.namespace ?? 'default';
  const out = new Map<string, VolumeFile>();
  const cm = obj(volume.configMap);
  const sec = obj(volume.secret);
  const dw = obj(volume.downwardAPI);
  const pj = obj(volume.projected);
  const modeOf = (o: Obj | undefined) => (typeof o?.defaultMode === 'number' ? o.defaultMode : DEFAULT_MODE);
  if (cm) project(keysOf(await read<ConfigMap>(client, R.configmaps, ns, str(cm.name)), false), list(cm.items), modeOf(cm), out);
  else if (sec) project(keysOf(await read<Secret>(client, R.secrets, ns, str(sec.secretName)), true), list(sec.items), modeOf(sec), out);
  else if (dw) downward(pod, list(dw.items), modeOf(dw), out);
  else if (pj) {
    const mode = modeOf(pj);
    for (const s of list(pj.sources)) {
      const scm = obj(s.configMap);
      const ssec = obj(s.secret);
      const sdw = obj(s.downwardAPI);
      const tok = obj(s.serviceAccountToken);
      if (scm) project(keysOf(await read<ConfigMap>(client, R.configmaps, ns, str(scm.name)), false), list(scm.items), mode, out);
      if (ssec) project(keysOf(await read<Secret>(client, R.secrets, ns, str(ssec.name)), true), list(ssec.items), mode, out);
      if (sdw) downward(pod, list(sdw.items), mode, out);
      if (tok) {
        const t = token(str(volume.name));
        if (t !== undefined) out.set(str(tok.path) || 'token', { content: Buffer.from(t, 'utf8'), mode });
      }
    }
  } else return undefined;
  return out;
}

function join(base: string, rel: string): string {
  return `${base.replace(/\/+$/, '')}/${rel}`.replace(/\/+/g, '/');
}

/** The container's mounts with their contents now. A source that cannot be read leaves its mount empty. */
export async function containerMounts(client: Pick<KubeApi, 'get'>, pod: Pod, container: Container, token: TokenLookup): Promise<Mount[]> {
  const out: Mount[] = [];
  const byName = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v as Obj]));
  for (const vm of container.volumeMounts ?? []) {
    const volume = byName.get(vm.name);
    if (!volume || !vm.mountPath) continue;
    const files = await volumeFiles(client, pod, volume, token).catch(() => new Map<string, VolumeFile>());
    const mount: Mount = { mountPath: vm.mountPath, files: new Map(), live: !vm.subPath && files !== undefined, single: false };
    const sub = (vm.subPath ?? '').replace(/^\/+|\/+$/g, '');
    for (const [rel, f] of files ?? []) {
      if (!sub) mount.files.set(join(vm.mountPath, rel), f);
      else if (rel === sub) {
        mount.files.set(vm.mountPath, f);
        mount.single = true;
      } else if (rel.startsWith(`${sub}/`)) mount.files.set(join(vm.mountPath, rel.slice(sub.length + 1)), f);
    }
    out.push(mount);
  }
  return out;
}
