// Webhook configuration validation (pkg/apis/admissionregistration/validation, v1): unique fully qualified
// webhook names, rules (operations, groups, versions, resources with subresources, scope), client config
// (exactly one of url and service), the enumerations, timeouts, review versions, selectors and matchConditions.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, asString, child, fieldErrors, index, isRecord } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Subdomain, isQualifiedName, isValidPortNum } from '@kemu/api';
import { validateLabelSelector } from './apps.ts';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS_V1 = ['None', 'NoneOnDryRun'];
const REINVOCATION = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
export const MAX_MATCH_CONDITIONS = 64;

const strings = (v: unknown): string[] => (asArray(v) ?? []).map((x) => (typeof x === 'string' ? x : String(x)));

/** IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function fullyQualifiedName(path: string, name: string): StatusCause[] {
  if (name === '') return [fieldErrors.required(path)];
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  const errs = isDNS1123Subdomain(n);
  if (errs.length > 0) return [fieldErrors.invalid(path, n, errs.join(','))];
  if (n.split('.').length < 3) return [fieldErrors.invalid(path, n, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateResources(resources: string[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (resources.length === 0) out.push(fieldErrors.required(path));
  // x/y: x names a resource ('*' all), y a subresource ('*' all).
  const withSub = new Set<string>();
  const withoutSub = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSub = false;
  resources.forEach((r, i) => {
    if (r === '') {
      out.push(fieldErrors.required(index(path, i)));
      return;
    }
    if (r === '*/*') hasDoubleWildcard = true;
    if (r === '*') hasSingleWildcard = true;
    const [res, sub] = r.split('/', 2) as [string, string | undefined];
    if (sub === undefined) {
      hasResourceWithoutSub = true;
      withoutSub.add(res);
    } else withSub.add(res);
  });
  if (hasDoubleWildcard && resources.length > 1) out.push(fieldErrors.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSub && withoutSub.size > 1)
    out.push(fieldErrors.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  for (const res of withSub) {
    if (res !== '*' && resources.includes(`${res}/*`) && resources.some((r) => r.startsWith(`${res}/`) && r !== `${res}/*`))
      out.push(fieldErrors.invalid(path, resources, `if '${res}/*' is present, must not specify ${res}/<subresource>`));
  }
  return out;
}

function oneStar(values: string[], path: string, what: string, out: StatusCause[]): void {
  if (values.length > 1 && values.includes('*')) out.push(fieldErrors.invalid(path, values, `if '*' is present, must not specify other ${what}`));
}

function validateRuleWithOperations(rule: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const ops = strings(rule.operations);
  const opsPath = child(path, 'operations');
  if (ops.length === 0) out.push(fieldErrors.required(opsPath));
  oneStar(ops, opsPath, 'operations', out);
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) out.push(fieldErrors.notSupported(index(opsPath, i), op, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) out.push(fieldErrors.required(child(path, 'apiGroups')));
  oneStar(groups, child(path, 'apiGroups'), 'API groups', out);
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) out.push(fieldErrors.required(child(path, 'apiVersions')));
  oneStar(versions, child(path, 'apiVersions'), 'API versions', out);
  versions.forEach((v, i) => {
    if (v === '') out.push(fieldErrors.required(index(child(path, 'apiVersions'), i)));
  });
  out.push(...validateResources(strings(rule.resources), child(path, 'resources')));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(String(rule.scope))) out.push(fieldErrors.notSupported(child(path, 'scope'), rule.scope, SCOPES));
  return out;
}

function validateServicePath(path: string, p: string): StatusCause[] {
  if (p === '/') return [];
  if (!p.startsWith('/')) return [fieldErrors.invalid(path, p, "must start with a '/'")];
  const out: StatusCause[] = [];
  const steps = p.slice(1).split('/');
  steps.forEach((step, i) => {
    if (step === '' && i !== steps.length - 1) out.push(fieldErrors.invalid(path, p, `segment[${i}] may not be empty`));
    else if (step !== '') for (const m of isDNS1123Subdomain(step)) out.push(fieldErrors.invalid(path, p, `segment[${i}]: ${m}`));
  });
  return out;
}

/** webhook.ValidateWebhookURL with forceHttps. */
function validateURL(path: string, raw: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch (e) {
    return [fieldErrors.invalid(path, raw, `url must be a valid URL: parse ${JSON.stringify(raw)}: ${(e as Error).message}`)];
  }
  const out: StatusCause[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') out.push(fieldErrors.invalid(path, scheme, "'https' is the only allowed URL scheme"));
  if (u.host === '') out.push(fieldErrors.invalid(path, u.host, 'host must be specified'));
  if (u.username !== '' || u.password !== '') out.push(fieldErrors.invalid(path, u.password ? `${u.username}:xxxxx` : u.username, 'user information is not permitted in the URL'));
  if (u.hash !== '') out.push(fieldErrors.invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search !== '') out.push(fieldErrors.invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return out;
}

/** A webhook's clientConfig (url or service); CRD conversion webhooks use it too. */
export function validateClientConfig(cc: unknown, path: string): StatusCause[] {
  const c = isRecord(cc) ? cc : {};
  const url = asString(c.url);
  const svc = isRecord(c.service) ? c.service : undefined;
  if ((url !== undefined) === (svc !== undefined)) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (url !== undefined) return validateURL(child(path, 'url'), url);
  const out: StatusCause[] = [];
  const sp = child(path, 'service');
  if (!asString(svc?.name)) out.push(fieldErrors.required(child(sp, 'name'), 'service name is required'));
  if (!asString(svc?.namespace)) out.push(fieldErrors.required(child(sp, 'namespace'), 'service namespace is required'));
  if (svc?.port !== undefined) {
    const errs = isValidPortNum(svc.port);
    if (errs.length > 0) out.push(fieldErrors.invalid(child(sp, 'port'), svc.port, `port is not valid: ${errs.join(', ')}`));
  }
  const p = asString(svc?.path);
  if (p !== undefined) out.push(...validateServicePath(child(sp, 'path'), p));
  return out;
}

/** validateMatchConditions: names (qualified, unique), expressions required; at most 64. CEL is compiled elsewhere. */
export function validateMatchConditions(conds: unknown, path: string): StatusCause[] {
  const list = asArray(conds) ?? [];
  const out: StatusCause[] = [];
  if (list.length > MAX_MATCH_CONDITIONS) out.push(fieldErrors.tooMany(path, list.length, MAX_MATCH_CONDITIONS));
  const seen = new Set<string>();
  list.forEach((c, i) => {
    const m = isRecord(c) ? c : {};
    const name = asString(m.name) ?? '';
    const np = child(index(path, i), 'name');
    if (name === '') out.push(fieldErrors.required(np));
    else {
      for (const e of isQualifiedName(name)) out.push(fieldErrors.invalid(np, name, e));
      if (seen.has(name)) out.push(fieldErrors.duplicate(np, name));
      seen.add(name);
    }
    if (!asString(m.expression)) out.push(fieldErrors.required(child(index(path, i), 'expression')));
  });
  return out;
}

function validateReviewVersions(v: unknown, path: string): StatusCause[] {
  const versions = strings(v);
  if (versions.length === 0) return [fieldErrors.required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  versions.forEach((ver, i) => {
    if (ver === '') out.push(fieldErrors.required(index(path, i)));
    else if (seen.has(ver)) out.push(fieldErrors.invalid(index(path, i), ver, 'duplicate version'));
    seen.add(ver);
  });
  if (!versions.some((x) => REVIEW_VERSIONS.includes(x))) out.push(fieldErrors.invalid(path, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return out;
}

function enumField(v: unknown, path: string, allowed: readonly string[], out: StatusCause[]): void {
  if (v !== undefined && v !== null && !allowed.includes(String(v))) out.push(fieldErrors.notSupported(path, v, allowed));
}

function validateWebhook(hook: Record<string, unknown>, path: string, mutating: boolean, sideEffectsAllowed: readonly string[]): StatusCause[] {
  const out = fullyQualifiedName(child(path, 'name'), asString(hook.name) ?? '');
  (asArray(hook.rules) ?? []).forEach((r, i) => out.push(...validateRuleWithOperations(isRecord(r) ? r : {}, index(child(path, 'rules'), i))));
  enumField(hook.failurePolicy, child(path, 'failurePolicy'), FAILURE_POLICIES, out);
  enumField(hook.matchPolicy, child(path, 'matchPolicy'), MATCH_POLICIES, out);
  if (hook.sideEffects === undefined || hook.sideEffects === null)
    out.push(fieldErrors.required(child(path, 'sideEffects'), `must specify one of ${sideEffectsAllowed.join(', ')}`));
  else enumField(hook.sideEffects, child(path, 'sideEffects'), sideEffectsAllowed, out);
  const t = hook.timeoutSeconds;
  if (t !== undefined && t !== null && (typeof t !== 'number' || t < 1 || t > 30))
    out.push(fieldErrors.invalid(child(path, 'timeoutSeconds'), t, 'the timeout value must be between 1 and 30 seconds'));
  if (hook.namespaceSelector !== undefined && hook.namespaceSelector !== null) out.push(...validateLabelSelector(hook.namespaceSelector, child(path, 'namespaceSelector')));
  if (hook.objectSelector !== undefined && hook.objectSelector !== null) out.push(...validateLabelSelector(hook.objectSelector, child(path, 'objectSelector')));
  out.push(...validateReviewVersions(hook.admissionReviewVersions, child(path, 'admissionReviewVersions')));
  if (mutating) enumField(hook.reinvocationPolicy, child(path, 'reinvocationPolicy'), REINVOCATION, out);
  out.push(...validateClientConfig(hook.clientConfig, child(path, 'clientConfig')));
  if (hook.matchConditions !== undefined) out.push(...validateMatchConditions(hook.matchConditions, child(path, 'matchConditions')));
  return out;
}

function validateConfiguration(o: KubeObject, mutating: boolean, old?: KubeObject): StatusCause[] {
  const out = old ? validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false }) : validateObjectMeta(o.metadata, { namespaced: false });
  // Some and Unknown (v1beta1 leftovers) stay valid on an update of a configuration that already used them.
  const oldSideEffects = new Set((asArray(old?.webhooks) ?? []).map((h) => (isRecord(h) ? String(h.sideEffects) : '')));
  const allowed = [...SIDE_EFFECTS_V1, ...['Some', 'Unknown'].filter((s) => oldSideEffects.has(s))].sort();
  const seen = new Set<string>();
  (asArray(o.webhooks) ?? []).forEach((h, i) => {
    const hook = isRecord(h) ? h : {};
    const p = index('webhooks', i);
    const name = asString(hook.name) ?? '';
    if (seen.has(name)) out.push(fieldErrors.duplicate(child(p, 'name'), name));
    seen.add(name);
    out.push(...validateWebhook(hook, p, mutating, allowed));
  });
  return out;
}

export const validateMutatingWebhookConfiguration = (o: KubeObject): StatusCause[] => validateConfiguration(o, true);
export const validateMutatingWebhookConfigurationUpdate = (o: KubeObject, old: KubeObject): StatusCause[] => validateConfiguration(o, true, old);
export const validateValidatingWebhookConfiguration = (o: KubeObject): StatusCause[] => validateConfiguration(o, false);
export const validateValidatingWebhookConfigurationUpdate = (o: KubeObject, old: KubeObject): StatusCause[] => validateConfiguration(o, false, old);
