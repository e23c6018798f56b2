// PodSecurity: the namespace's pod-security.kubernetes.io/{enforce,warn,audit} labels (with -version)
// choose a Pod Security Standard; a pod that violates the enforce level is refused with Kubernetes'
// "violates PodSecurity" message, one that violates the warn level gets a "would violate" warning.
// Workloads' pod templates are judged for warn only, as Kubernetes does. Unreadable labels on a Namespace
// are refused (422). No exemptions; audit is accepted
// but kemu keeps no audit log.
import { errors, qualifiedResource, R, type KubeObject, type StatusCause } from '@kemu/api';
import { fieldErrors } from '../validation/field.ts';
import { evaluate, failures, type Level } from './pod-security-checks.ts';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
import { isObj } from './types.ts';

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

type Obj = Record<string, unknown>;

export interface LevelVersion {
  level: Level;
  version: string;
}

const MODES = ['enforce', 'audit', 'warn'] as const;
const VERSION = /^v1\.([0-9]|[1-9][0-9]*)$/;
const validLevel = (l: string): l is Level => (LEVELS as readonly string[]).includes(l);
const validVersion = (v: string): boolean => v === 'latest' || VERSION.test(v);

/** The policy a namespace label pair names; an unreadable level or version means restricted:latest, as Kubernetes. */
export function policyOf(labels: Record<string, string>, mode: 'enforce' | 'warn' | 'audit'): LevelVersion {
  const level = labels[`${LABEL_PREFIX}${mode}`];
  const version = labels[`${LABEL_PREFIX}${mode}-version`] ?? 'latest';
  if (level === undefined) return { level: 'privileged', version: 'latest' };
  if (!validLevel(level) || !validVersion(version)) return { level: 'restricted', version: 'latest' };
  return { level, version };
}

/** Kubernetes' field errors for unreadable pod-security labels on a Namespace. */
export function namespaceLabelCauses(labels: Record<string, string>): StatusCause[] {
  const out: StatusCause[] = [];
  for (const mode of MODES) {
    const levelKey = `${LABEL_PREFIX}${mode}`;
    const versionKey = `${levelKey}-version`;
    const level = labels[levelKey];
    const version = labels[versionKey];
    if (level !== undefined && !validLevel(level)) out.push(fieldErrors.invalid(`metadata.labels[${levelKey}]`, level, 'must be one of privileged, baseline, restricted'));
    if (version !== undefined && !validVersion(version)) out.push(fieldErrors.invalid(`metadata.labels[${versionKey}]`, version, 'must be "latest" or "v1.x"'));
  }
  return out;
}

async function validateNamespace(attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<void> {
  const labels = attrs.object?.metadata.labels ?? {};
  const old = attrs.oldObject?.metadata.labels ?? {};
  if (attrs.operation === 'UPDATE') {
    const ours = (l: Record<string, string>) => JSON.stringify(Object.entries(l).filter(([k]) => k.startsWith(LABEL_PREFIX)).sort());
    if (ours(labels) === ours(old)) return;
  }
  const causes = namespaceLabelCauses(labels);
  if (causes.length > 0) throw errors.invalid('', 'Namespace', attrs.name, causes);
  if (attrs.operation === 'UPDATE') await warnExistingPods(attrs, ctx, policyOf(labels, 'enforce'), policyOf(old, 'enforce'));
}

/**
 * A stricter enforce level on a namespace: the pods already there that would not pass are named in
 * warnings (they keep running), grouped by the same reasons, as Kubernetes does.
 */
async function warnExistingPods(attrs: AdmissionAttributes, ctx: AdmissionContext, enforce: LevelVersion, before: LevelVersion): Promise<void> {
  if (enforce.level === 'privileged' || (enforce.level === before.level && enforce.version === before.version) || !ctx.listPods) return;
  const pods = [...(await ctx.listPods(attrs.name))].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const groups = new Map<string, string[]>();
  for (const p of pods) {
    if (!isObj(p.spec)) continue;
    const reasons = failures(enforce.level, p.metadata as Obj, p.spec).map((r) => r.reason);
    if (reasons.length === 0) continue;
    const key = reasons.join(', ');
    groups.set(key, [...(groups.get(key) ?? []), p.metadata.name ?? '']);
  }
  if (groups.size === 0) return;
  attrs.warn?.(`existing pods in namespace "${attrs.name}" violate the new PodSecurity enforce level "${text(enforce)}"`);
  const ordered = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || (a[1][0] ?? '').localeCompare(b[1][0] ?? ''));
  for (const [reasons, names] of ordered) {
    attrs.warn?.(names.length > 1 ? `${names[0]} (and ${names.length - 1} other pods): ${reasons}` : `${names[0]}: ${reasons}`);
  }
}

const text = (p: LevelVersion): string => `${p.level}:${p.version}`;

/** The kinds whose pod template PodSecurity judges (warn only), and where the template sits. */
const TEMPLATE_PATHS: Record<string, readonly string[]> = {
  '/PodTemplate': ['template'],
  '/ReplicationController': ['spec', 'template'],
  'apps/ReplicaSet': ['spec', 'template'],
  'apps/Deployment': ['spec', 'template'],
  'apps/StatefulSet': ['spec', 'template'],
  'apps/DaemonSet': ['spec', 'template'],
  'batch/Job': ['spec', 'template'],
  'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template'],
};

function at(o: unknown, path: readonly string[]): unknown {
  let cur = o;
  for (const k of path) cur = isObj(cur) ? cur[k] : undefined;
  return cur;
}

/** The pod metadata and spec a request is judged on, or undefined when PodSecurity leaves it alone. */
function podOf(attrs: AdmissionAttributes): { meta: Obj; spec: Obj; template: boolean } | undefined {
  if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return undefined;
  const r = attrs.resource;
  const obj = attrs.object;
  if (!obj) return undefined;
  if (r.group === '' && r.kind === 'Pod') {
    if (attrs.subresource && attrs.subresource !== 'ephemeralcontainers') return undefined;
    if (!isObj(obj.spec)) return undefined;
    if (attrs.operation === 'UPDATE' && attrs.oldObject && !significantPodUpdate(obj, attrs.oldObject)) return undefined;
    return { meta: obj.metadata as Obj, spec: obj.spec, template: false };
  }
  const path = TEMPLATE_PATHS[`${r.group}/${r.kind}`];
  if (!path || attrs.subresource) return undefined;
  const tpl = at(obj, path);
  if (!isObj(tpl) || !isObj(tpl.spec)) return undefined;
  if (attrs.operation === 'UPDATE' && JSON.stringify(tpl) === JSON.stringify(at(attrs.oldObject, path))) return undefined;
  return { meta: isObj(tpl.metadata) ? tpl.metadata : {}, spec: tpl.spec, template: true };
}

/** Kubernetes judges a pod update again only when an image or the ephemeral containers change. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const images = (o: KubeObject, list: string): string[] => {
    const cs = isObj(o.spec) ? o.spec[list] : undefined;
    return Array.isArray(cs) ? cs.map((c: unknown) => String(isObj(c) ? c.image : '')) : [];
  };
  if (images(pod, 'ephemeralContainers').length !== images(old, 'ephemeralContainers').length) return true;
  return ['initContainers', 'containers'].some((l) => JSON.stringify(images(pod, l)) !== JSON.stringify(images(old, l)));
}

export const podSecurityPlugin: AdmissionPlugin = {
  name: 'PodSecurity',
  async validate(attrs, ctx) {
    if (attrs.resource === R.namespaces && !attrs.subresource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) return validateNamespace(attrs, ctx);
    if (!attrs.namespace || !ctx.getNamespace) return;
    const pod = podOf(attrs);
    if (!pod) return;
    const ns = await ctx.getNamespace(attrs.namespace);
    const labels = ns?.metadata.labels ?? {};
    const enforce = policyOf(labels, 'enforce');
    const warn = policyOf(labels, 'warn');
    let refused: string | undefined;
    if (!pod.template) {
      const violations = evaluate(enforce.level, pod.meta, pod.spec);
      if (violations) refused = `${qualifiedResource(attrs.resource)} "${attrs.name}" is forbidden: violates PodSecurity "${text(enforce)}": ${violations}`;
    }
    // A warning that would repeat the refusal is not sent.
    if (!(refused && warn.level === enforce.level && warn.version === enforce.version)) {
      const violations = evaluate(warn.level, pod.meta, pod.spec);
      if (violations) attrs.warn?.(`would violate PodSecurity "${text(warn)}": ${violations}`);
    }
    if (refused) throw errors.forbidden(refused);
  },
};
