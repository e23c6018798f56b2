// What a pod's spec names that its node must read, as Kubernetes' podutil.VisitPodSecretNames and
// VisitPodConfigmapNames plus the claims and service account the Node authorizer's graph adds: Secrets
// (image pull secrets; envFrom and env valueFrom of init, regular and ephemeral containers; secret,
// projected and the volume plugins' secretRef volumes), ConfigMaps (envFrom, env valueFrom, configMap and
// projected volumes), PersistentVolumeClaims (persistentVolumeClaim volumes and the claims generic ephemeral
// volumes create, named <pod>-<volume>) and the ServiceAccount. Empty names are skipped. The pod is read as
// JSON from the watch cache, so every field is checked before use.
import type { KubeObject } from '@kemu/api';

export interface PodReferences {
  secrets: string[];
  configmaps: string[];
  pvcs: string[];
  /** spec.serviceAccountName (or the deprecated spec.serviceAccount), '' when none. */
  serviceAccount: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** o[a][b]… as a string ('' when any step is missing). */
const at = (o: unknown, ...keys: string[]): string => {
  let cur: unknown = o;
  for (const k of keys) cur = obj(cur)?.[k];
  return str(cur);
};

/**
 * The volume sources that carry a Secret reference, in the order Kubernetes' switch tests them (a valid
 * volume has exactly one source; the first one present decides).
 */
const SECRET_VOLUME_SOURCES: readonly [source: string, ...path: string[]][] = [
  ['azureFile', 'secretName'],
  ['cephfs', 'secretRef', 'name'],
  ['cinder', 'secretRef', 'name'],
  ['flexVolume', 'secretRef', 'name'],
  ['projected'],
  ['rbd', 'secretRef', 'name'],
  ['secret', 'secretName'],
  ['scaleIO', 'secretRef', 'name'],
  ['iscsi', 'secretRef', 'name'],
  ['storageos', 'secretRef', 'name'],
  ['csi', 'nodePublishSecretRef', 'name'],
];

function containersOf(spec: Obj): Obj[] {
  const out: Obj[] = [];
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    for (const c of arr(list)) {
      const o = obj(c);
      if (o) out.push(o);
    }
  }
  return out;
}

function projectedNames(volumeSource: Obj, kind: 'secret' | 'configMap'): string[] {
  return arr(obj(volumeSource.projected)?.sources).map((s) => at(s, kind, 'name'));
}

export function podReferences(pod: KubeObject): PodReferences {
  const spec = obj(pod.spec) ?? {};
  const secrets = new Set<string>();
  const configmaps = new Set<string>();
  const pvcs = new Set<string>();

  for (const ref of arr(spec.imagePullSecrets)) secrets.add(at(ref, 'name'));
  for (const c of containersOf(spec)) {
    for (const e of arr(c.envFrom)) {
      if (obj(obj(e)?.secretRef)) secrets.add(at(e, 'secretRef', 'name'));
      if (obj(obj(e)?.configMapRef)) configmaps.add(at(e, 'configMapRef', 'name'));
    }
    for (const e of arr(c.env)) {
      const from = obj(obj(e)?.valueFrom);
      if (!from) continue;
      if (obj(from.secretKeyRef)) secrets.add(at(from, 'secretKeyRef', 'name'));
      if (obj(from.configMapKeyRef)) configmaps.add(at(from, 'configMapKeyRef', 'name'));
    }
  }

  for (const v of arr(spec.volumes)) {
    const vol = obj(v);
    if (!vol) continue;
    const source = SECRET_VOLUME_SOURCES.find(([s]) => obj(vol[s]) !== undefined);
    if (source) {
      const [name, ...path] = source;
      if (name === 'projected') for (const n of projectedNames(vol, 'secret')) secrets.add(n);
      else secrets.add(at(vol[name], ...path));
    }
    // VisitPodConfigmapNames' own switch: projected first, then configMap.
    if (obj(vol.projected)) for (const n of projectedNames(vol, 'configMap')) configmaps.add(n);
    else if (obj(vol.configMap)) configmaps.add(at(vol, 'configMap', 'name'));
    if (obj(vol.persistentVolumeClaim)) pvcs.add(at(vol, 'persistentVolumeClaim', 'claimName'));
    else if (obj(vol.ephemeral)) pvcs.add(`${pod.metadata.name ?? ''}-${str(vol.name)}`);
  }

  const named = (s: Set<string>): string[] => [...s].filter((n) => n !== '');
  return {
    secrets: named(secrets),
    configmaps: named(configmaps),
    pvcs: named(pvcs),
    serviceAccount: str(spec.serviceAccountName) || str(spec.serviceAccount),
  };
}
