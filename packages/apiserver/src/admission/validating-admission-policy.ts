// ValidatingAdmissionPolicy: for every binding whose policy matches the request (policy matchConstraints,
// then the binding's matchResources), evaluate the policy's CEL for each selected param and enforce failed
// validations by the binding's validationActions: Deny rejects with the first failure (422 Invalid, or the
// status of the validation's reason), Warn adds a warning, Audit an audit annotation. Errors (compilation,
// runtime, cost, missing params) follow failurePolicy: Fail enforces them like failures, Ignore drops them.
import { findResourceByKind, labelSelectorAsSelector, qualifiedResource, R, selectorMatches, StatusError, type KubeObject, type LabelSelector, type StatusReason } from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from './types.ts';
import { matchResources, type MatchInputs } from './policy/matching.ts';
import { compilePolicy, evaluatePolicy, type Decision } from './policy/compiled.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const byName = (a: KubeObject, b: KubeObject): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1);

const REASON_CODES: Readonly<Record<string, number>> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

/** The `request` variable: the AdmissionRequest fields Kubernetes exposes to CEL. */
export function requestOf(a: AdmissionAttributes): Obj {
  const r = a.resource;
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const gvr = { group: r.group, version: r.version, resource: r.plural };
  return {
    kind: gvk,
    resource: gvr,
    subResource: a.subresource ?? '',
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: a.subresource ?? '',
    name: a.name,
    namespace: a.namespace ?? '',
    operation: a.operation,
    userInfo: a.userInfo ? { username: a.userInfo.username, uid: a.userInfo.uid ?? '', groups: a.userInfo.groups ?? [], extra: a.userInfo.extra ?? {} } : {},
    dryRun: a.dryRun,
  };
}

interface Failure {
  policy: string;
  binding: string;
  message: string;
  reason?: string;
  expressionIndex?: number;
  actions: string[];
}

/** Kubernetes' `… denied request: …` as a StatusError (admission.NewForbidden with the validation's reason). */
function denial(a: AdmissionAttributes, f: Failure): StatusError {
  const message = `ValidatingAdmissionPolicy '${f.policy}' with binding '${f.binding}' denied request: ${f.message}`;
  const name = a.name || (a.object?.metadata?.name ?? '');
  const gr = qualifiedResource(a.resource);
  const text = name ? `${gr} ${JSON.stringify(name)} is forbidden: ${message}` : `${gr} is forbidden: ${message}`;
  const reason = (f.reason && REASON_CODES[f.reason] ? f.reason : 'Invalid') as StatusReason;
  return new StatusError(reason, text, { name, group: a.resource.group, kind: a.resource.plural, causes: [{ message }] }, REASON_CODES[reason]);
}

/** The params a binding selects: [null] without paramKind or paramRef; [] when none is found. */
async function paramsFor(policy: Obj, binding: Obj, a: AdmissionAttributes, ctx: AdmissionContext): Promise<{ params: unknown[] } | { error: string } | { allow: true }> {
  if (!isObj(policy.paramKind)) return { params: [null] };
  if (!isObj(binding.paramRef)) return { params: [null] };
  const pk = policy.paramKind;
  const r = findResourceByKind(str(pk.apiVersion), str(pk.kind));
  if (!r) return { error: `failed to configure policy: failed to find resource referenced by paramKind: '${str(pk.apiVersion)}, Kind=${str(pk.kind)}'` };
  const ref = binding.paramRef;
  let ns: string | undefined;
  if (r.namespaced) {
    ns = str(ref.namespace) || a.namespace;
    if (!ns) return { error: 'failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  }
  const all = (await ctx.listObjects?.(r, ns)) ?? [];
  let found: KubeObject[];
  if (str(ref.name)) found = all.filter((o) => o.metadata.name === str(ref.name));
  else {
    let sel;
    try {
      sel = labelSelectorAsSelector((isObj(ref.selector) ? ref.selector : {}) as LabelSelector);
    } catch {
      return { error: 'failed to configure binding: invalid paramRef.selector' };
    }
    found = all.filter((o) => selectorMatches(sel, o.metadata.labels ?? {})).sort(byName);
  }
  if (found.length > 0) return { params: found };
  if (ref.parameterNotFoundAction === 'Deny') return { error: 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { allow: true };
}

export const validatingAdmissionPolicyPlugin: AdmissionPlugin = {
  name: 'ValidatingAdmissionPolicy',
  async validate(a, ctx) {
    // Policies never apply to policies and bindings (so a bad policy can always be fixed through the API).
    if (a.resource === R.validatingadmissionpolicies || a.resource === R.validatingadmissionpolicybindings) return;
    if (!ctx.listObjects) return;
    const bindings = (await ctx.listObjects(R.validatingadmissionpolicybindings, undefined)).sort(byName);
    if (bindings.length === 0) return;
    const policies = new Map((await ctx.listObjects(R.validatingadmissionpolicies, undefined)).map((p) => [p.metadata.name ?? '', p]));
    let nsObj: Promise<KubeObject | undefined> | undefined;
    const namespace = () => (nsObj ??= a.namespace && ctx.getNamespace ? ctx.getNamespace(a.namespace) : Promise.resolve(undefined));
    const inputs: MatchInputs = { attrs: a, namespace };
    const failures: Failure[] = [];
    const annotations = new Map<string, Set<string>>();
    for (const b of bindings) {
      const bspec = isObj(b.spec) ? b.spec : {};
      const policy = policies.get(str(bspec.policyName));
      if (!policy) continue;
      const pspec = isObj(policy.spec) ? policy.spec : {};
      if (!(await matchResources(pspec.matchConstraints, inputs))) continue;
      if (bspec.matchResources !== undefined && !(await matchResources(bspec.matchResources, inputs, true))) continue;
      const pname = policy.metadata.name ?? '';
      const bname = b.metadata.name ?? '';
      const actions = Array.isArray(bspec.validationActions) ? bspec.validationActions.map(str) : [];
      const ignore = pspec.failurePolicy === 'Ignore';
      const record = (d: Decision): void => {
        if (d.kind === 'error' && ignore) return;
        failures.push({ policy: pname, binding: bname, message: d.message, ...(d.kind === 'fail' && d.reason ? { reason: d.reason } : {}), ...(d.expressionIndex !== undefined ? { expressionIndex: d.expressionIndex } : {}), actions });
      };
      const ps = await paramsFor(pspec, bspec, a, ctx);
      if ('allow' in ps) continue;
      if ('error' in ps) {
        record({ kind: 'error', message: ps.error });
        continue;
      }
      const compiled = compilePolicy(policy);
      const ns = a.resource.namespaced ? ((await namespace()) ?? null) : null;
      for (const params of ps.params) {
        const ev = evaluatePolicy(compiled, {
          object: a.operation === 'DELETE' ? null : (a.object ?? null),
          oldObject: a.operation === 'CREATE' ? null : (a.oldObject ?? null),
          request: requestOf(a),
          params,
          namespaceObject: ns,
          authorizer: null,
        });
        if (!ev.matched) continue;
        ev.decisions.forEach(record);
        for (const an of ev.annotations) {
          const key = `${pname}/${an.key}`;
          if (!annotations.has(key)) annotations.set(key, new Set());
          annotations.get(key)!.add(an.value);
        }
      }
    }
    for (const [k, vs] of annotations) a.annotate?.(k, [...vs].join(', '));
    const audited = failures.filter((f) => f.actions.includes('Audit'));
    if (audited.length > 0)
      a.annotate?.(
        VALIDATION_FAILURE_ANNOTATION,
        JSON.stringify(audited.map((f) => ({ message: f.message, policy: f.policy, binding: f.binding, expressionIndex: f.expressionIndex ?? 0, validationActions: f.actions }))),
      );
    for (const f of failures) if (f.actions.includes('Warn')) a.warn?.(`Validation failed for ValidatingAdmissionPolicy '${f.policy}' with binding '${f.binding}': ${f.message}`);
    const denied = failures.find((f) => f.actions.includes('Deny'));
    if (denied) throw denial(a, denied);
  },
};
