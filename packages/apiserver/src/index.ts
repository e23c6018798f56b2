// @kemu/apiserver: the Kubernetes API server. Guarantees: Kubernetes' REST paths, verbs, status codes and
// Status bodies for every resource of the resource table; resourceVersion = the store's global revision;
// watches deliver every change in resourceVersion order from a shared cache, or a 410 when too old.
export { createApiServer, type ApiServer, type ApiServerOptions, BODY_LIMIT } from './server.ts';
export { loadExtensions, noExtensions, type Extensions } from './extensions.ts';
export type { Clock } from './clock.ts';
export { ensureSystemNamespaces, SYSTEM_NAMESPACES } from './bootstrap/system-namespaces.ts';
export { ensureBootstrapPolicy, bootstrapPolicyCheck, RBAC_BOOTSTRAP_HOOK } from './bootstrap/rbac-policy.ts';
export { ensureKubernetesService } from './bootstrap/kubernetes-service.ts';
export { startIdentityLease, identityLeaseName } from './bootstrap/identity-lease.ts';
export { startEndpointReconciler, ENDPOINT_ANNOTATION } from './bootstrap/endpoint-reconciler.ts';
export { advertisedIP } from './bootstrap/advertise-address.ts';
export type { Attributes, AuthorizationResult, Authorizer, Decision, RulesResult } from './authz/types.ts';
export { alwaysAllow, alwaysDeny, privilegedGroups } from './authz/always.ts';
export { aggregateMessage, unionAuthorizer } from './authz/union.ts';
export { AUTHZ_FLAGS, buildAuthorizer, parseAuthorizationModes, type AuthorizationMode, type AuthorizerFactories } from './authz/modes.ts';
export { forbiddenError } from './authz/forbidden.ts';
export { authorizationOutcome, type AuthorizationOutcome } from './authz/decide.ts';
