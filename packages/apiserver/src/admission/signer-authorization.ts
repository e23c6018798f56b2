// IsAuthorizedForSignerName (plugin/pkg/admission/certificates): may the user <verb> (approve, sign) on the
// synthetic `signers` resource of certificates.k8s.io named after the signer, or on `<domain>/*` for every
// signer of that domain.
import { CERTIFICATES_GROUP, qualifiedResource, StatusError } from '@kemu/api';
import type { Attributes } from '../authz/types.ts';
import type { AdmissionAttributes, AdmissionContext, UserInfo } from './types.ts';

function signerAttributes(user: UserInfo, verb: string, name: string): Attributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup: CERTIFICATES_GROUP, apiVersion: '*', resource: 'signers', subresource: '', namespace: '', name };
}

export async function isAuthorizedForSignerName(ctx: AdmissionContext, user: UserInfo | undefined, verb: string, signerName: string): Promise<boolean> {
  // No authorizer wired in means no authorization at all (everything allowed), as without --authorization-mode.
  if (!ctx.authorize) return true;
  if (!user) return false;
  if ((await ctx.authorize(signerAttributes(user, verb, signerName))).decision === 'allow') return true;
  const domain = signerName.split('/')[0] ?? '';
  return (await ctx.authorize(signerAttributes(user, verb, `${domain}/*`))).decision === 'allow';
}

/** admission.NewForbidden: `<resource>.<group> "<name>" is forbidden: <why>`, with the Status details Kubernetes sets. */
export function admissionForbidden(attrs: AdmissionAttributes, why: string): StatusError {
  const r = attrs.resource;
  return new StatusError('Forbidden', `${qualifiedResource(r)} "${attrs.name}" is forbidden: ${why}`, {
    name: attrs.name,
    ...(r.group ? { group: r.group } : {}),
    kind: r.plural,
  });
}
