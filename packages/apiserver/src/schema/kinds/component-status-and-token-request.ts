// Kinds kemu serves that no other schema file covers: core/v1 ComponentStatus (deprecated, `kubectl get cs`) and
// authentication.k8s.io/v1 TokenRequest (POST serviceaccounts/<name>/token, `kubectl create token`). Numbers and
// tags from k8s.io/api 1.32 (core/v1 and authentication/v1 generated.proto and types.go).
import { byKey, i64Ptr, list, msg, str, strs, struct } from '../build.ts';
import { ObjectMeta, Time } from './meta.ts';

const AUTHN = 'io.k8s.api.authentication.v1.';

export const ComponentCondition = struct('io.k8s.api.core.v1.ComponentCondition', 'One health check of a control-plane component.', {
  1: str('type', 'The check; only Healthy.'),
  2: str('status', 'True, False or Unknown.'),
  3: str('message', 'What the component answered.'),
  4: str('error', 'Why the component could not be checked, if it could not.'),
});

export const ComponentStatus = struct('io.k8s.api.core.v1.ComponentStatus', 'Deprecated: the health of a control-plane component (kubectl get componentstatuses).', {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata; the name is the component (scheduler, etcd-0…).'),
  2: list('conditions', () => ComponentCondition, 'The health checks, one per type.', byKey('type')),
});

export const BoundObjectReference = struct(`${AUTHN}BoundObjectReference`, 'An object a token is tied to: the token stops working when the object is deleted.', {
  1: str('kind', 'Pod, Secret or Node.'),
  2: str('apiVersion', 'API version of the object: v1.'),
  3: str('name', 'Name of the object.'),
  4: str('uid', 'UID of the object; when set, it must match.'),
});

export const TokenRequestSpec = struct(`${AUTHN}TokenRequestSpec`, 'The token asked for: who it is for, how long it lasts, what it is tied to.', {
  1: strs('audiences', "Audiences the token is valid for; empty means the apiserver's own."),
  4: i64Ptr('expirationSeconds', 'Validity asked for, in seconds, at least 600; default 3600; the server may shorten it.'),
  3: msg('boundObjectRef', () => BoundObjectReference, 'An object the token is tied to; the token dies with it.'),
});

export const TokenRequestStatus = struct(`${AUTHN}TokenRequestStatus`, 'The issued token.', {
  1: str('token', 'The signed service account token (a JWT).'),
  2: msg('expirationTimestamp', () => Time, 'When the token expires.'),
});

export const TokenRequest = struct(`${AUTHN}TokenRequest`, "Asks for a service account token (POST to the service account's token subresource).", {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata; the name is that of the service account.'),
  2: msg('spec', () => TokenRequestSpec, 'The token asked for.'),
  3: msg('status', () => TokenRequestStatus, 'The issued token, filled in by the server.'),
});
