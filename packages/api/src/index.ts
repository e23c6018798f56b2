// @kemu/api: the API object types, the resource table and the Status error model, shared by every component.
// Guarantees: one definition of each kind and resource; errors render as Kubernetes metav1.Status.
export type * from './meta.ts';
export type * from './core.ts';
export type * from './apps.ts';
export type * from './rbac.ts';
export { RBAC_ALL, RBAC_GROUP } from './rbac.ts';
export type * from './certificates.ts';
export type * from './storage.ts';
export { STORAGE } from './storage.ts';
export {
  CERTIFICATES_GROUP,
  SIGNER_KUBE_APISERVER_CLIENT,
  SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
  SIGNER_KUBELET_SERVING,
  SIGNER_LEGACY_UNKNOWN,
} from './certificates.ts';
export * from './resources.ts';
export * from './status.ts';
export * from './time.ts';
export * from './quantity.ts';
export * from './selector.ts';
export * from './lease-fence.ts';
export * from './bootstrap-token.ts';
