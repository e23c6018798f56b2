// --anonymous-auth: a request no authenticator claimed (and none refused) is system:anonymous in
// system:unauthenticated.
import type { AuthnResponse } from './types.ts';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from './user.ts';

export function anonymousResponse(): AuthnResponse {
  return { user: { username: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } };
}
