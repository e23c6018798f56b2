// Defaulting for ReplicationControllers, PodTemplates, LimitRanges (pkg/apis/core/v1/defaults.go),
// NetworkPolicies and IngressClasses (pkg/apis/networking/v1/defaults.go).
import { defaultPodTemplate } from './pod.ts';
import { ensureObj, isObj, objects, setDefault } from './util.ts';
import type { Obj } from './util.ts';

/** SetDefaults_ReplicationController: selector and labels from the template's labels, replicas 1. */
export function defaultReplicationController(rc: Obj): void {
  const spec = ensureObj(rc, 'spec');
  const tpl = isObj(spec.template) ? spec.template : undefined;
  const tplLabels = tpl && isObj(tpl.metadata) && isObj(tpl.metadata.labels) ? tpl.metadata.labels : undefined;
  if (tplLabels && Object.keys(tplLabels).length > 0) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...tplLabels };
    const meta = ensureObj(rc, 'metadata');
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...tplLabels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (tpl) defaultPodTemplate(tpl);
}

export function defaultPodTemplateObject(pt: Obj): void {
  if (isObj(pt.template)) defaultPodTemplate(pt.template);
}

/** SetDefaults_LimitRangeItem: for Container items, default ← max, defaultRequest ← default, then ← min. */
export function defaultLimitRange(lr: Obj): void {
  const spec = isObj(lr.spec) ? lr.spec : undefined;
  if (!spec) return;
  for (const item of objects(spec.limits)) {
    if (item.type !== 'Container') continue;
    const def: Obj = isObj(item.default) ? { ...item.default } : {};
    const req: Obj = isObj(item.defaultRequest) ? { ...item.defaultRequest } : {};
    for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) if (!(k in req)) req[k] = v;
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

/** SetDefaults_NetworkPolicy (policyTypes from the rules present) and SetDefaults_NetworkPolicyPort (TCP). */
export function defaultNetworkPolicy(np: Obj): void {
  const spec = ensureObj(np, 'spec');
  const rules = [...objects(spec.ingress), ...objects(spec.egress)];
  for (const r of rules) for (const p of objects(r.ports)) setDefault(p, 'protocol', 'TCP');
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    const types = ['Ingress'];
    if (objects(spec.egress).length > 0) types.push('Egress');
    spec.policyTypes = types;
  }
}

/** SetDefaults_IngressClass: parameters' scope Cluster. */
export function defaultIngressClass(ic: Obj): void {
  const spec = isObj(ic.spec) ? ic.spec : undefined;
  if (spec && isObj(spec.parameters)) setDefault(spec.parameters, 'scope', 'Cluster');
}
