// POST serviceaccounts/<name>/token: a TokenRequest (authentication.k8s.io/v1) answered with a freshly signed
// bound token, as Kubernetes' TokenREST: audiences default to --api-audiences, expirationSeconds to 3600 (at
// least 10 minutes, at most 2^32 s, capped by --service-account-max-token-expiration with a warning), optionally
// bound to a Pod (with its node), Secret or Node. Never stored. Without a signing key there is no such endpoint.
import { errors, formatTime, R, StatusError, type KubeObject, type StatusCause } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { warningHeaders } from '../registry/warnings.ts';
import { boundClaims, signClaims } from '@kemu/pki';
import { pageNotFound } from './target.ts';
import { isDryRun, type ApiReply, type ApiRequest } from './request.ts';

const GROUP = 'authentication.k8s.io';
const KIND = { apiVersion: `${GROUP}/v1`, kind: 'TokenRequest' };
/** Kubernetes' WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds (projected-token transition). */
const WARN_ONLY_SECONDS = 3607;
const EXTENSION_SECONDS = 24 * 365 * 60 * 60;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

async function getOrUndefined(ctx: ApiContext, r: typeof R.pods, ns: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await ctx.registry.get(r, ns, name);
  } catch (e) {
    if (e instanceof StatusError && e.reason === 'NotFound') return undefined;
    throw e;
  }
}

export async function tokenRequest(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const issuer = ctx.tokenIssuer;
  if (!issuer) throw pageNotFound();
  isDryRun(req.query);
  const t = req.target;
  const ns = t.namespace ?? '';
  const name = t.name ?? '';
  const body = asObjectBody(req.body, R.serviceaccounts, t.namespace, KIND);
  if (body.metadata.name && body.metadata.name !== name) {
    throw errors.invalid(GROUP, 'TokenRequest', name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(body.metadata.name)}: must match the service account name if specified` }]);
  }
  const sa = await ctx.registry.get(R.serviceaccounts, ns, name);
  const spec = isObject(body.spec) ? body.spec : {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [...issuer.apiAudiences];
  let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  const causes: StatusCause[] = [];
  if (expirationSeconds < 600) causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: `Invalid value: ${expirationSeconds}: may not specify a duration less than 10 minutes` });
  if (expirationSeconds > 2 ** 32) causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: `Invalid value: ${expirationSeconds}: may not specify a duration larger than 2^32 seconds` });
  if (causes.length) throw errors.invalid(GROUP, 'TokenRequest', '', causes);

  let pod: KubeObject | undefined;
  let secret: KubeObject | undefined;
  let node: KubeObject | undefined;
  const ref = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (ref) {
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const refName = typeof ref.name === 'string' ? ref.name : '';
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    let bound: KubeObject;
    if (group === '' && kind === 'Pod') {
      pod = bound = await ctx.registry.get(R.pods, ns, refName);
      const podSpec = (pod.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
      if (podSpec.serviceAccountName !== name) throw errors.badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      if (podSpec.nodeName) node = (await getOrUndefined(ctx, R.nodes, undefined, podSpec.nodeName)) ?? { apiVersion: 'v1', kind: 'Node', metadata: { name: podSpec.nodeName } };
    } else if (group === '' && kind === 'Node') {
      node = bound = await ctx.registry.get(R.nodes, undefined, refName);
    } else if (group === '' && kind === 'Secret') {
      secret = bound = await ctx.registry.get(R.secrets, ns, refName);
    } else {
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    const uid = typeof ref.uid === 'string' ? ref.uid : '';
    if (uid !== '' && uid !== bound.metadata.uid) {
      throw errors.conflict(group === '' ? kind : `${kind}.${group}`, refName, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }

  const warnings: string[] = [];
  if (issuer.maxExpirationSeconds > 0 && expirationSeconds > issuer.maxExpirationSeconds) {
    warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${issuer.maxExpirationSeconds} seconds`);
    expirationSeconds = issuer.maxExpirationSeconds;
  }
  let tokenSeconds = expirationSeconds;
  let warnAfterSeconds: number | undefined;
  if (issuer.extendExpiration && pod && expirationSeconds === WARN_ONLY_SECONDS && audiences.every((a) => issuer.apiAudiences.includes(a))) {
    warnAfterSeconds = expirationSeconds;
    tokenSeconds = EXTENSION_SECONDS;
  }
  const nowMs = ctx.clock.now();
  const { claims } = boundClaims({
    issuer: issuer.issuer,
    serviceAccount: sa,
    audiences,
    expirationSeconds: tokenSeconds,
    nowMs,
    ...(pod ? { pod } : {}),
    ...(secret ? { secret } : {}),
    ...(node ? { node } : {}),
    ...(warnAfterSeconds ? { warnAfterSeconds } : {}),
  });
  const token = await signClaims(issuer.signer, claims);
  const out: KubeObject = {
    kind: KIND.kind,
    apiVersion: KIND.apiVersion,
    metadata: { name: sa.metadata.name ?? name, namespace: sa.metadata.namespace ?? ns, creationTimestamp: formatTime(nowMs) },
    spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: formatTime(nowMs + expirationSeconds * 1000) },
  };
  return { code: 201, body: out, ...warningHeaders(warnings) };
}
