// services (pkg/registry/core/service/strategy.go + REST): status cleared on create; on update the
// allocated values (clusterIP(s), IP families, node ports) are carried over when the client omits them,
// as `kubectl replace`/`apply` rely on. Allocation itself is in ../allocators.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultService } from '../defaults/core.ts';
import { validateService, validateServiceUpdate } from '../validation/service.ts';
import { isRecord, asArray } from '../validation/field.ts';

function normalizeIPs(svc: KubeObject): void {
  const spec = isRecord(svc.spec) ? svc.spec : undefined;
  if (!spec || spec.type === 'ExternalName') return;
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && !asArray(spec.clusterIPs)) spec.clusterIPs = [spec.clusterIP];
  if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = 'SingleStack';
  if (!asArray(spec.ipFamilies)) spec.ipFamilies = ['IPv4'];
}

function keepAllocated(svc: KubeObject, old: KubeObject): void {
  const spec = isRecord(svc.spec) ? svc.spec : undefined;
  const oldSpec = isRecord(old.spec) ? old.spec : undefined;
  if (!spec || !oldSpec || spec.type === 'ExternalName') return;
  if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof oldSpec.clusterIP === 'string') {
    spec.clusterIP = oldSpec.clusterIP;
    if (!asArray(spec.clusterIPs) && asArray(oldSpec.clusterIPs)) spec.clusterIPs = structuredClone(oldSpec.clusterIPs);
  }
  for (const f of ['ipFamilies', 'ipFamilyPolicy'] as const) if (spec[f] === undefined && oldSpec[f] !== undefined) spec[f] = structuredClone(oldSpec[f]);
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    const oldPorts = asArray(oldSpec.ports) ?? [];
    for (const p of asArray(spec.ports) ?? []) {
      if (!isRecord(p) || (p.nodePort !== undefined && p.nodePort !== 0)) continue;
      const match = oldPorts.find((q) => isRecord(q) && q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (isRecord(match) && typeof match.nodePort === 'number') p.nodePort = match.nodePort;
    }
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
