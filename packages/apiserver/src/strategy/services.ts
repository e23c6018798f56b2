// services (pkg/registry/core/service/strategy.go + REST): status cleared on create; clusterIP and
// clusterIPs[0] kept in step; on update the allocated values (clusterIP(s), node ports, the health check port) and the
// ipFamilyPolicy are carried over when the client omits them, as `kubectl replace`/`apply` rely on.
// ipFamilies/ipFamilyPolicy defaulting needs the cluster's ranges, so it is the allocator's
// (../allocators/ip-families.ts), as in Kubernetes.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultService } from '../defaults/core.ts';
import { validateService, validateServiceUpdate } from '../validation/service.ts';
import { isRecord, asArray } from '../validation/field.ts';

function normalizeIPs(svc: KubeObject): void {
  const spec = isRecord(svc.spec) ? svc.spec : undefined;
  if (!spec || spec.type === 'ExternalName') return;
  const ips = asArray(spec.clusterIPs);
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && (!ips || ips.length === 0)) spec.clusterIPs = [spec.clusterIP];
  else if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof ips?.[0] === 'string' && ips[0] !== '') spec.clusterIP = ips[0];
}

function keepAllocated(svc: KubeObject, old: KubeObject): void {
  const spec = isRecord(svc.spec) ? svc.spec : undefined;
  const oldSpec = isRecord(old.spec) ? old.spec : undefined;
  if (!spec || !oldSpec || spec.type === 'ExternalName') return;
  if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof oldSpec.clusterIP === 'string') {
    spec.clusterIP = oldSpec.clusterIP;
    if (!asArray(spec.clusterIPs) && asArray(oldSpec.clusterIPs)) spec.clusterIPs = structuredClone(oldSpec.clusterIPs);
  }
  if (spec.ipFamilyPolicy === undefined && oldSpec.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    const oldPorts = asArray(oldSpec.ports) ?? [];
    for (const p of asArray(spec.ports) ?? []) {
      if (!isRecord(p) || (p.nodePort !== undefined && p.nodePort !== 0)) continue;
      const match = oldPorts.find((q) => isRecord(q) && q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (isRecord(match) && typeof match.nodePort === 'number') p.nodePort = match.nodePort;
    }
  }
  // patchAllocatedValues and dropTypeDependentFields for the health check port: an omitted one is kept while still
  // needed; one the client left as it was is dropped when no longer needed (validation would refuse it).
  const needs = (x: Record<string, unknown>) => x.type === 'LoadBalancer' && x.externalTrafficPolicy === 'Local';
  if (needs(oldSpec) && typeof oldSpec.healthCheckNodePort === 'number') {
    if (needs(spec) && (spec.healthCheckNodePort === undefined || spec.healthCheckNodePort === 0)) spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
    else if (!needs(spec) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) delete spec.healthCheckNodePort;
  }
  normalizeIPs(svc);
}

export const serviceStrategy = buildStrategy(R.services, {
  defaults: (s) => defaultService(s),
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  status: { initial: () => ({ loadBalancer: {} }) },
  prepareForCreate: normalizeIPs,
  prepareForUpdate: keepAllocated,
});
