// The request authenticator kube-apiserver builds (pkg/kubeapiserver/authenticator/config.go): its authenticators
// tried in order, the first to accept wins and the others' errors are dropped; authenticated users get
// system:authenticated (unless already in it or in system:unauthenticated); then, with --anonymous-auth, a request
// with no credential at all is anonymous, while one whose credential was refused stays refused (union.NewFailOnError).
import { aggregate } from './aggregate.ts';
import { anonymousResponse } from './anonymous.ts';
import type { Authenticator, AuthnRequest, AuthnResponse } from './types.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED } from './user.ts';

export interface UnionOptions {
  anonymous: boolean;
}

function withAuthenticatedGroup(res: AuthnResponse): AuthnResponse {
  const groups = res.user.groups;
  if (groups.includes(ALL_AUTHENTICATED) || groups.includes(ALL_UNAUTHENTICATED)) return res;
  return { ...res, user: { ...res.user, groups: [...groups, ALL_AUTHENTICATED] } };
}

/**
 * Answers the user, undefined when there was no credential and anonymous requests are off (a 401), or throws
 * AuthenticationError (with the aggregated reasons, for the log and TokenReview) when a credential was refused.
 */
export function unionAuthenticator(authenticators: readonly Authenticator[], o: UnionOptions): Authenticator {
  return {
    name: 'union',
    async authenticate(req: AuthnRequest): Promise<AuthnResponse | undefined> {
      const errs: unknown[] = [];
      for (const a of authenticators) {
        try {
          const res = await a.authenticate(req);
          if (res) return withAuthenticatedGroup(res);
        } catch (e) {
          errs.push(e);
        }
      }
      const err = aggregate(errs);
      if (err) throw err;
      return o.anonymous ? anonymousResponse() : undefined;
    },
  };
}
