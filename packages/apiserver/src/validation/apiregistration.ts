// APIService validation (k8s.io/kube-aggregator pkg/apis/apiregistration/validation): the name is
// <version>.<group>, the group a DNS subdomain (empty only for the legacy v1), the version a DNS-1035 label,
// priorities in range, and a local APIService (no service) carries no TLS settings.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, asRecord, asString, child, fieldErrors, index, isRecord } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName } from '@kemu/api';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

/** SetDefaults_ServiceReference: port 443. */
export function defaultAPIService(obj: KubeObject): void {
  const svc = asRecord(asRecord(obj.spec)?.service);
  if (svc && svc.port === undefined) svc.port = 443;
}

/** Bytes of a base64 caBundle as it decodes. */
const bundleBytes = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

export function validateAPIService(obj: KubeObject): StatusCause[] {
  const spec = asRecord(obj.spec) ?? {};
  const group = asString(spec.group) ?? '';
  const version = asString(spec.version) ?? '';
  const required = `${version}.${group}`;
  const out = validateObjectMeta(obj.metadata, {
    namespaced: false,
    nameFn: (name) => {
      const minimal = isValidPathSegmentName(name);
      if (minimal.length > 0) return minimal;
      return name === required ? [] : [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`];
    },
  });
  if (group === '' && version !== 'v1') out.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const m of isDNS1123Subdomain(group)) out.push(fieldErrors.invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) out.push(fieldErrors.invalid('spec.version', version, m));
  const gpm = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (gpm <= 0 || gpm > 20000) out.push(fieldErrors.invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (vp <= 0 || vp > 1000) out.push(fieldErrors.invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const insecure = spec.insecureSkipTLSVerify === true;
  const caBytes = bundleBytes(spec.caBundle);
  const svc = asRecord(spec.service);
  if (!svc) {
    if (caBytes !== 0) out.push(fieldErrors.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) out.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return out;
  }
  if (!asString(svc.namespace)) out.push(fieldErrors.required('spec.service.namespace'));
  if (!asString(svc.name)) out.push(fieldErrors.required('spec.service.name'));
  if (insecure && caBytes > 0) out.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return out;
}

export function validateAPIServiceUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  // The metadata checks both make are reported once.
  const all = [...validateObjectMetaUpdate(obj.metadata, old.metadata, { namespaced: false, nameFn: isValidPathSegmentName }), ...validateAPIService(obj)];
  return all.filter((c, i) => all.findIndex((d) => d.field === c.field && d.message === c.message) === i);
}

export function validateAPIServiceStatusUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(obj.metadata, old.metadata, { namespaced: false, nameFn: isValidPathSegmentName });
  const conditions = asArray(asRecord(obj.status)?.conditions) ?? [];
  conditions.forEach((c, i) => {
    const status = isRecord(c) ? c.status : undefined;
    if (typeof status !== 'string' || !CONDITION_STATUSES.includes(status))
      out.push(fieldErrors.notSupported(child(index('status.conditions', i), 'status'), status ?? '', CONDITION_STATUSES));
  });
  return out;
}
