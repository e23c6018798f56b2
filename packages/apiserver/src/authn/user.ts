// Who a request acts as, as Kubernetes' user.Info: the authenticators produce it, impersonation may replace it,
// and authorization, admission and audit read it.
export interface UserInfo {
  username: string;
  uid?: string;
  groups: readonly string[];
  /** Extra attributes (e.g. authentication.kubernetes.io/credential-id), keys lower-cased. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_MASTERS = 'system:masters';
// Defined beside the token claims that carry it (@kemu/pki's service-account-token.ts).
export { SERVICE_ACCOUNT_PREFIX } from '@kemu/pki';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

/** The user the apiserver acts as for its own loopback work (kube-apiserver's loopback client). */
export const APISERVER_USER: UserInfo = { username: 'system:apiserver', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED] };

/** Requests that skip authentication and authorization (the --insecure-port, in-process servers without authentication) act as this user, as Kubernetes' insecure serving did. */
export const UNSECURED_USER: UserInfo = { username: 'system:unsecured', groups: [SYSTEM_MASTERS, ALL_AUTHENTICATED] };
