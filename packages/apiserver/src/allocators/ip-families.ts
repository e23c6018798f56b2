// A Service's spec.ipFamilyPolicy and spec.ipFamilies, defaulted and checked against the cluster's
// service ranges before any ClusterIP is allocated (Kubernetes' Allocators.initIPFamilyFields, with its
// messages): SingleStack unless asked (a selectorless headless Service asks for RequireDualStack), the
// families inferred from requested clusterIPs, else the primary range's, plus the other family for a
// dual-stack policy on a dual-stack cluster.
import type { KubeObject, StatusCause } from '@kemu/api';
import { ipFamilyOf, type IPFamily } from '@kemu/base';
import { fieldErrors } from '../validation/field.ts';

export interface ClusterIPFamilies {
  /** The family of --service-cluster-ip-range[0]. */
  primary: IPFamily;
  /** Every family with a range (one or two). */
  configured: readonly IPFamily[];
}

type Obj = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const other = (f: IPFamily): IPFamily => (f === 'IPv4' ? 'IPv6' : 'IPv4');
const sameList = (a: unknown, b: unknown): boolean => JSON.stringify(strings(a)) === JSON.stringify(strings(b));

export function needsClusterIP(spec: Obj): boolean {
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

function hasSelector(spec: Obj): boolean {
  return typeof spec.selector === 'object' && spec.selector !== null && Object.keys(spec.selector).length > 0;
}

/** An unchanged PreferDualStack Service is never upgraded or downgraded by a change of the cluster. */
function unchangedPreferDualStack(spec: Obj, old: Obj | undefined): boolean {
  if (!old || !needsClusterIP(old) || !needsClusterIP(spec)) return false;
  if (spec.ipFamilyPolicy !== 'PreferDualStack' || old.ipFamilyPolicy !== spec.ipFamilyPolicy) return false;
  return sameList(spec.clusterIPs, old.clusterIPs) && sameList(spec.ipFamilies, old.ipFamilies);
}

/** Defaults the fields in place; the causes of a 422 when the request cannot be met on this cluster. */
export function initIPFamilyFields(svc: KubeObject, oldSvc: KubeObject | undefined, cluster: ClusterIPFamilies): StatusCause[] {
  const spec = svc.spec as Obj;
  const old = oldSvc?.spec as Obj | undefined;
  if (spec.type === 'ExternalName') return [];
  // The strategy keeps clusterIP and clusterIPs in step; callers that skip it (tests, bootstrap) may set one.
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && strings(spec.clusterIPs).length === 0) spec.clusterIPs = [spec.clusterIP];
  if (unchangedPreferDualStack(spec, old)) return [];
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null || spec.ipFamilyPolicy === '') {
    if (old && typeof old.ipFamilyPolicy === 'string') spec.ipFamilyPolicy = old.ipFamilyPolicy;
    else if (spec.clusterIP === 'None' && !hasSelector(spec)) spec.ipFamilyPolicy = 'RequireDualStack';
    else spec.ipFamilyPolicy = 'SingleStack';
  }
  const policy = spec.ipFamilyPolicy as string;
  const errs: StatusCause[] = [];
  let ips = strings(spec.clusterIPs);
  let families = strings(spec.ipFamilies) as IPFamily[];
  if (old) {
    if (policy === 'SingleStack') {
      // Clear intent to drop the secondary; clusterIPs[0] is immutable, so keeping it is safe.
      if (sameList(old.clusterIPs, ips) && ips.length > 1) ips = ips.slice(0, 1);
      if (sameList(old.ipFamilies, families) && families.length > 1) families = families.slice(0, 1);
    } else {
      if (ips.length > 0 && ips.length < strings(old.clusterIPs).length)
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (families.length > 0 && families.length < strings(old.ipFamilies).length)
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (policy === 'SingleStack') {
    if (ips.length === 2) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (families.length === 2) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  for (const [i, ip] of ips.entries()) {
    if (ip === 'None') break;
    const fam = ipFamilyOf(ip);
    if (fam === undefined || i < families.length) continue;
    if (!cluster.configured.includes(fam)) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ips, `${fam} is not configured on this cluster`));
    else families.push(fam);
  }
  const write = (): void => {
    if (ips.length > 0 || Array.isArray(spec.clusterIPs)) spec.clusterIPs = ips;
    if (ips[0] !== undefined) spec.clusterIP = ips[0];
    spec.ipFamilies = families;
  };
  if (errs.length > 0) return errs;
  if (spec.clusterIP === 'None' && !hasSelector(spec)) {
    // Headless without a selector may name both families even on a single-stack cluster.
    if (families.length === 0) families = [cluster.primary];
    if (families.length < 2 && policy !== 'SingleStack') families.push(other(families[0] as IPFamily));
    write();
    return [];
  }
  if (policy === 'RequireDualStack' && cluster.configured.length < 2)
    errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  for (const [i, fam] of families.entries()) {
    if (!cluster.configured.includes(fam)) errs.push(fieldErrors.invalid(`spec.ipFamilies[${i}]`, fam, 'not configured on this cluster'));
  }
  if (errs.length > 0) return errs;
  if (families.length === 0) families = [cluster.primary];
  if (policy !== 'SingleStack' && families.length === 1 && cluster.configured.length === 2) families.push(other(families[0] as IPFamily));
  write();
  return [];
}
