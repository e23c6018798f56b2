// --allow-privileged: with it false (kube-apiserver's default), validation refuses privileged containers
// in pods and in the pod templates of workloads, with Kubernetes' "disallowed by cluster policy". Applied
// by wrapping the kind's strategy, since the flag is the server's, not the kind's.
import { R, type KubeObject, type ResourceInfo, type StatusCause } from '@kemu/api';
import type { ResourceStrategy } from '../strategy/types.ts';
import { fieldErrors } from './field.ts';

export interface ClusterPolicy {
  allowPrivileged: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The privileged containers of a pod spec at path, as Forbidden causes. */
export function privilegedCauses(spec: unknown, path: string): StatusCause[] {
  if (!isObj(spec)) return [];
  const out: StatusCause[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    cs.forEach((c: unknown, i) => {
      if (isObj(c) && isObj(c.securityContext) && c.securityContext.privileged === true) {
        out.push(fieldErrors.forbidden(`${path}.${list}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
      }
    });
  }
  return out;
}

function podSpecOf(r: ResourceInfo, obj: KubeObject): [unknown, string] | undefined {
  if (r === R.pods) return [obj.spec, 'spec'];
  const spec = obj.spec;
  if (isObj(spec) && isObj(spec.template)) return [spec.template.spec, 'spec.template.spec'];
  return undefined;
}

export function withClusterPolicy(r: ResourceInfo, s: ResourceStrategy | undefined, policy: ClusterPolicy): ResourceStrategy | undefined {
  if (!s || policy.allowPrivileged || (r.group !== '' && r.group !== 'apps' && r.group !== 'batch')) return s;
  const causes = (obj: KubeObject): StatusCause[] => {
    const at = podSpecOf(r, obj);
    return at ? privilegedCauses(at[0], at[1]) : [];
  };
  const wrapped: ResourceStrategy = { ...s };
  if (s.validate) {
    const v = s.validate.bind(s);
    wrapped.validate = (o) => [...v(o), ...causes(o)];
  }
  // A pod's containers cannot change on update, so Kubernetes does not judge them again there.
  if (s.validateUpdate && r !== R.pods) {
    const v = s.validateUpdate.bind(s);
    wrapped.validateUpdate = (o, old) => [...v(o, old), ...causes(o)];
  }
  if (s.validateEphemeralContainersUpdate) {
    const v = s.validateEphemeralContainersUpdate.bind(s);
    wrapped.validateEphemeralContainersUpdate = (o, old) => [...v(o, old), ...causes(o)];
  }
  return wrapped;
}
