// POST tokenreviews (authentication.k8s.io/v1): is this bearer token good, and whose is it? Answered by the
// server's own authenticator chain as Kubernetes' TokenReview REST does; never stored.
import { errors, R, type KubeObject } from '@kemu/api';
import type { ApiContext } from '../context.ts';
import { errorMessage } from '../authn/aggregate.ts';
import type { AuthnResponse } from '../authn/types.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { asObjectBody } from '../registry/object-body.ts';
import { isDryRun, type ApiReply, type ApiRequest } from './request.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function tokenReview(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  isDryRun(req.query);
  fieldValidationOf(req.query, 'CreateOptions');
  const obj = asObjectBody(req.body, R.tokenreviews, undefined);
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) throw errors.badRequest('spec must be an object');
  const spec = isObject(obj.spec) ? obj.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw errors.badRequest('token is required for TokenReview in authentication');
  const specAudiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];

  const status: Record<string, unknown> = {};
  let res: AuthnResponse | undefined;
  if (ctx.tokenAuthenticator) {
    try {
      res = await ctx.tokenAuthenticator.authenticateToken(token, specAudiences.length ? specAudiences : undefined);
    } catch (e) {
      status.error = errorMessage(e);
    }
  }
  if (res) {
    // An authenticator that ignored the requested audiences must not vouch for them.
    if (specAudiences.length > 0 && !(res.audiences ?? []).some((a) => specAudiences.includes(a))) throw errors.internal('error validating audiences');
    status.authenticated = true;
    const u = res.user;
    const user: Record<string, unknown> = { username: u.username };
    if (u.uid) user.uid = u.uid;
    if (u.groups.length) user.groups = [...u.groups];
    if (u.extra && Object.keys(u.extra).length) user.extra = structuredClone(u.extra);
    status.user = user;
    if (res.audiences?.length) status.audiences = [...res.audiences];
  } else {
    status.user = {};
  }
  const body: KubeObject = { ...obj, metadata: { ...obj.metadata, creationTimestamp: null } as unknown as KubeObject['metadata'], spec, status };
  return { code: 201, body };
}
