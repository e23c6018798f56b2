// The one list of controllers kube-controller-manager knows (selection rules for --controllers: selection.ts).
import type { ControllerDescriptor } from './controller.ts';
import { selectControllers as select } from './selection.ts';
import { serviceAccountDescriptor } from './controllers/serviceaccount.ts';
import { namespaceDescriptor } from './controllers/namespace.ts';
import { garbageCollectorDescriptor } from './controllers/garbagecollector.ts';
import { replicaSetDescriptor, replicationControllerDescriptor } from './controllers/replicaset.ts';
import { deploymentDescriptor } from './controllers/deployment/index.ts';
import { daemonSetDescriptor } from './controllers/daemonset/index.ts';
import { statefulSetDescriptor } from './controllers/statefulset/index.ts';
import { nodeIpamDescriptor } from './controllers/nodeipam.ts';
import { nodeLifecycleDescriptor } from './controllers/nodelifecycle.ts';
import { endpointsDescriptor } from './controllers/endpoints.ts';
import { endpointSliceDescriptor } from './controllers/endpointslice.ts';
import { podGCDescriptor } from './controllers/podgc.ts';
import { clusterRoleAggregationDescriptor } from './controllers/clusterrole-aggregation.ts';
import { CERTIFICATE_CONTROLLERS } from './controllers/certificates/index.ts';
import { persistentVolumeBinderDescriptor } from './controllers/volume/binder.ts';
import { pvcProtectionDescriptor, pvProtectionDescriptor } from './controllers/volume/protection.ts';
// Identity controllers (bootstrap tokens, the root CA, legacy ServiceAccount tokens).
import { serviceAccountTokenDescriptor } from './controllers/serviceaccount-token.ts';
import { bootstrapSignerDescriptor } from './controllers/bootstrapsigner.ts';
import { tokenCleanerDescriptor } from './controllers/tokencleaner.ts';
import { rootCACertPublisherDescriptor } from './controllers/rootcacertpublisher.ts';
// Batch controllers.
import { jobDescriptor } from './controllers/job/index.ts';
import { cronJobDescriptor } from './controllers/cronjob.ts';
import { ttlAfterFinishedDescriptor } from './controllers/ttlafterfinished.ts';
import { disruptionDescriptor } from './controllers/disruption/index.ts';
import { resourceQuotaDescriptor } from './controllers/resourcequota.ts';
import { horizontalPodAutoscalerDescriptor } from './controllers/podautoscaler/index.ts';

/** Every known controller, in start order. Add new controllers here (and only here). */
export const CONTROLLERS: ControllerDescriptor[] = [
  serviceAccountDescriptor,
  namespaceDescriptor,
  garbageCollectorDescriptor,
  replicaSetDescriptor,
  deploymentDescriptor,
  nodeIpamDescriptor,
  nodeLifecycleDescriptor,
  endpointsDescriptor,
  endpointSliceDescriptor,
  podGCDescriptor,
  clusterRoleAggregationDescriptor,
  ...CERTIFICATE_CONTROLLERS,
  // Identity controllers.
  serviceAccountTokenDescriptor,
  bootstrapSignerDescriptor,
  tokenCleanerDescriptor,
  rootCACertPublisherDescriptor,
  // Batch controllers.
  jobDescriptor,
  cronJobDescriptor,
  ttlAfterFinishedDescriptor,
  // Storage.
  persistentVolumeBinderDescriptor,
  pvcProtectionDescriptor,
  pvProtectionDescriptor,
  // Disruption budgets, replication controllers and quota.
  replicationControllerDescriptor,
  disruptionDescriptor,
  resourceQuotaDescriptor,
  daemonSetDescriptor,
  statefulSetDescriptor,
  horizontalPodAutoscalerDescriptor,
];

/** The registered descriptors --controllers selects (throws ControllerSelectionError for unknown names). */
export function selectControllers(flag: readonly string[], all: readonly ControllerDescriptor[] = CONTROLLERS): ControllerDescriptor[] {
  return select(flag, all);
}
export { ControllerSelectionError, isControllerEnabled, validateControllerFlag } from './selection.ts';
