// Kubernetes' WrapAudienceAgnosticToken: authenticators that know nothing of audiences (token file, bootstrap
// tokens) vouch for the API's own audiences only. When the caller names audiences (TokenReview), the answer is
// "not mine" unless they meet --api-audiences, and the response carries the audiences that met.
import type { AuthnResponse, TokenAuthenticator } from './types.ts';

export function audienceAgnostic(apiAudiences: readonly string[], delegate: TokenAuthenticator): TokenAuthenticator {
  return {
    name: delegate.name,
    async authenticateToken(token, audiences): Promise<AuthnResponse | undefined> {
      if (!audiences) return delegate.authenticateToken(token);
      const auds = apiAudiences.filter((a) => audiences.includes(a));
      if (auds.length === 0) return undefined;
      const res = await delegate.authenticateToken(token);
      return res ? { ...res, audiences: auds } : undefined;
    },
  };
}
