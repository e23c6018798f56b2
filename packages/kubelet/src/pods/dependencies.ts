// What a pod needs from the API before its containers can be created, checked as the kubelet's volume
// manager and container config do: every volume's source (configMap, secret, projected sources, a bound
// persistentVolumeClaim) must exist unless optional — else FailedMount and the pod stays ContainerCreating;
// then every non-optional ConfigMap/Secret (and key) its containers' env and envFrom name — else the
// container waits in CreateContainerConfigError.
import { R, StatusError, type ConfigMap, type Container, type KubeObject, type PersistentVolumeClaim, type Pod, type ResourceInfo, type Secret } from '@kemu/api';
import type { KubeApi } from '../api.ts';

type Obj = Record<string, unknown>;
const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface MountFailure {
  volume: string;
  message: string;
}

export interface ConfigFailure {
  container: string;
  init: boolean;
  /** The kubelet's error: `configmap "x" not found`, `couldn't find key k in Secret ns/x`… */
  message: string;
}

/** Reads objects once per check (several references to one object cost one request); undefined = not found. */
class Reader {
  private readonly cache = new Map<string, Promise<KubeObject | undefined>>();
  constructor(
    private readonly client: Pick<KubeApi, 'get'>,
    private readonly namespace: string,
  ) {}

  get<T extends KubeObject>(r: ResourceInfo, name: string): Promise<T | undefined> {
    const key = `${r.plural}/${name}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.client.get<T>(r, this.namespace, name).catch((e: unknown) => {
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      });
      this.cache.set(key, p);
    }
    return p as Promise<T | undefined>;
  }
}

const hasKey = (o: ConfigMap | Secret, key: string): boolean =>
  key in ((o as Obj).data as Obj | undefined ?? {}) || key in ((o as Obj).binaryData as Obj | undefined ?? {}) || key in ((o as Obj).stringData as Obj | undefined ?? {});

/** The first missing source of each volume (in the pod's order). */
export async function mountFailures(client: Pick<KubeApi, 'get'>, pod: Pod): Promise<MountFailure[]> {
  const ns = pod.metadata.namespace ?? 'default';
  const read = new Reader(client, ns);
  const out: MountFailure[] = [];
  for (const v of pod.spec.volumes ?? []) {
    const fail = (why: string) => out.push({ volume: v.name, message: `MountVolume.SetUp failed for volume "${v.name}" : ${why}` });
    const cm = obj(v.configMap);
    if (cm && cm.optional !== true && !(await read.get(R.configmaps, str(cm.name)))) fail(`configmap "${str(cm.name)}" not found`);
    const sec = obj(v.secret);
    if (sec && sec.optional !== true && !(await read.get(R.secrets, str(sec.secretName)))) fail(`secret "${str(sec.secretName)}" not found`);
    for (const src of (obj(v.projected)?.sources as unknown[] | undefined) ?? []) {
      const pcm = obj(obj(src)?.configMap);
      // kube-root-ca.crt (the ServiceAccount admission's kube-api-access volume) is not waited for: labs and
      // tests run without the root-ca-cert-publisher, and a pod without the CA file still starts here.
      if (pcm && pcm.optional !== true && str(pcm.name) !== ROOT_CA_CONFIGMAP && !(await read.get(R.configmaps, str(pcm.name)))) {
        fail(`configmap "${str(pcm.name)}" not found`);
        break;
      }
      const psec = obj(obj(src)?.secret);
      if (psec && psec.optional !== true && !(await read.get(R.secrets, str(psec.name)))) {
        fail(`secret "${str(psec.name)}" not found`);
        break;
      }
    }
    const pvc = obj(v.persistentVolumeClaim);
    if (pvc) {
      const name = str(pvc.claimName);
      const claim = await read.get<PersistentVolumeClaim>(R.persistentvolumeclaims, name);
      const unmounted = `Unable to attach or mount volumes: unmounted volumes=[${v.name}], unattached volumes=[], failed to process volumes=[${v.name}]: `;
      if (!claim) out.push({ volume: v.name, message: `${unmounted}error processing PVC ${ns}/${name}: failed to fetch PVC from API server: persistentvolumeclaims "${name}" not found` });
      else if (!claim.spec.volumeName || claim.status?.phase !== 'Bound') out.push({ volume: v.name, message: `${unmounted}error processing PVC ${ns}/${name}: PVC is not bound` });
    }
  }
  return out;
}

/** The first config error of each container whose env or envFrom names something missing. */
export async function configFailures(client: Pick<KubeApi, 'get'>, pod: Pod): Promise<ConfigFailure[]> {
  const ns = pod.metadata.namespace ?? 'default';
  const read = new Reader(client, ns);
  const out: ConfigFailure[] = [];
  const check = async (c: Container): Promise<string | undefined> => {
    const raw = c as unknown as Obj;
    for (const ef of (raw.envFrom as unknown[] | undefined) ?? []) {
      const cm = obj(obj(ef)?.configMapRef);
      if (cm && cm.optional !== true && !(await read.get(R.configmaps, str(cm.name)))) return `configmap "${str(cm.name)}" not found`;
      const sec = obj(obj(ef)?.secretRef);
      if (sec && sec.optional !== true && !(await read.get(R.secrets, str(sec.name)))) return `secret "${str(sec.name)}" not found`;
    }
    for (const e of (raw.env as unknown[] | undefined) ?? []) {
      const from = obj(obj(e)?.valueFrom);
      const cmk = obj(from?.configMapKeyRef);
      if (cmk && cmk.optional !== true) {
        const o = await read.get<ConfigMap>(R.configmaps, str(cmk.name));
        if (!o) return `configmap "${str(cmk.name)}" not found`;
        if (!hasKey(o, str(cmk.key))) return `couldn't find key ${str(cmk.key)} in ConfigMap ${ns}/${str(cmk.name)}`;
      }
      const sk = obj(from?.secretKeyRef);
      if (sk && sk.optional !== true) {
        const o = await read.get<Secret>(R.secrets, str(sk.name));
        if (!o) return `secret "${str(sk.name)}" not found`;
        if (!hasKey(o, str(sk.key))) return `couldn't find key ${str(sk.key)} in Secret ${ns}/${str(sk.name)}`;
      }
    }
    return undefined;
  };
  for (const [list, init] of [[pod.spec.initContainers ?? [], true], [pod.spec.containers, false]] as const) {
    for (const c of list) {
      const message = await check(c);
      if (message) out.push({ container: c.name, init, message });
    }
  }
  return out;
}
