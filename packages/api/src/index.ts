// @kemu/api: the API object types, the resource table and the Status error model, shared by every component.
// Guarantees: one definition of each kind and resource; errors render as Kubernetes metav1.Status.
export type * from './meta.ts';
export type * from './core.ts';
export type * from './apps.ts';
export type * from './batch.ts';
export { CRONJOB_SCHEDULED_TIMESTAMP, JOB_LABELS, JOB_TRACKING_FINALIZER } from './batch.ts';
export type * from './policy.ts';
export type * from './autoscaling.ts';
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
export * from './served-resources.ts';
export * from './status.ts';
export * from './time.ts';
export * from './quantity.ts';
export * from './selector.ts';
export * from './label-selector.ts';
export * from './names.ts';
export * from './lease-fence.ts';
export * from './bootstrap-token.ts';
export { parseCronSchedule, timeZoneError } from './cron.ts';
export type { CronSchedule } from './cron.ts';
export * from './pdb.ts';
export * from './quota.ts';
