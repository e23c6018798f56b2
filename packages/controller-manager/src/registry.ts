// The one list of controllers kube-controller-manager knows (selection rules for --controllers: selection.ts).
import type { ControllerDescriptor } from './controller.ts';
import { selectControllers as select } from './selection.ts';
import { serviceAccountDescriptor } from './controllers/serviceaccount.ts';
import { namespaceDescriptor } from './controllers/namespace.ts';
import { garbageCollectorDescriptor } from './controllers/garbagecollector.ts';
import { replicaSetDescriptor } from './controllers/replicaset.ts';
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
// Identity controllers (bootstrap tokens, the root CA, legacy ServiceAccount tokens).
import { serviceAccountTokenDescriptor } from './controllers/serviceaccount-token.ts';
import { bootstrapSignerDescriptor } from './controllers/bootstrapsigner.ts';
import { tokenCleanerDescriptor } from './controllers/tokencleaner.ts';
import { rootCACertPublisherDescriptor } from './controllers/rootcacertpublisher.ts';

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
  daemonSetDescriptor,
  statefulSetDescriptor,
];

/** The registered descriptors --controllers selects (throws ControllerSelectionError for unknown names). */
export function selectControllers(flag: readonly string[], all: readonly ControllerDescriptor[] = CONTROLLERS): ControllerDescriptor[] {
  return select(flag, all);
}
export { ControllerSelectionError, isControllerEnabled, validateControllerFlag } from './selection.ts';
