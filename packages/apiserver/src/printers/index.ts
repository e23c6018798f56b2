// Table printers per resource, as `kubectl get` prints them (pkg/printers/internalversion/printers.go).
// Resources without one here get the server's default Name / Created At table.
import { R } from '@kemu/api';
import type { ResourceInfo } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { podPrinter } from './pods.ts';
import { nodePrinter } from './nodes.ts';
import * as core from './core.ts';
import { eventPrinter, eventsV1Printer } from './events.ts';
import { deploymentPrinter, replicaSetPrinter } from './apps.ts';
import { controllerRevisionPrinter, daemonSetPrinter, statefulSetPrinter } from './apps-sets.ts';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.ts';
import { certificateSigningRequestPrinter } from './certificates.ts';
import { endpointSlicePrinter, leasePrinter, priorityClassPrinter } from './misc.ts';
import { cronJobPrinter, jobPrinter } from './batch.ts';
import * as storage from './storage.ts';
import * as policy from './policy.ts';
import { webhookConfigurationPrinter } from './admissionregistration.ts';
import { validatingAdmissionPolicyBindingPrinter, validatingAdmissionPolicyPrinter } from './admission-policies.ts';
import { customResourceDefinitionPrinter } from './apiextensions.ts';
import { horizontalPodAutoscalerPrinter } from './autoscaling.ts';
import { apiServicePrinter } from './apiregistration.ts';

const key = (r: { group: string; plural: string }): string => `${r.plural}.${r.group}`;

const PRINTERS = new Map<string, TablePrinter>([
  [key(R.pods), podPrinter],
  // Both versions (one key per group and plural): the printer reads either form.
  [key(R.horizontalpodautoscalers), horizontalPodAutoscalerPrinter],
  [key(R.nodes), nodePrinter],
  [key(R.namespaces), core.namespacePrinter],
  [key(R.services), core.servicePrinter],
  [key(R.endpoints), core.endpointsPrinter],
  [key(R.configmaps), core.configMapPrinter],
  [key(R.secrets), core.secretPrinter],
  [key(R.serviceaccounts), core.serviceAccountPrinter],
  [key(R.componentstatuses), core.componentStatusPrinter],
  [key(R.events), eventPrinter],
  [key(R.eventsV1), eventsV1Printer],
  [key(R.deployments), deploymentPrinter],
  [key(R.replicasets), replicaSetPrinter],
  [key(R.leases), leasePrinter],
  [key(R.endpointslices), endpointSlicePrinter],
  [key(R.priorityclasses), priorityClassPrinter],
  [key(R.validatingadmissionpolicies), validatingAdmissionPolicyPrinter],
  [key(R.validatingadmissionpolicybindings), validatingAdmissionPolicyBindingPrinter],
  [key(R.rolebindings), roleBindingPrinter],
  [key(R.clusterrolebindings), clusterRoleBindingPrinter],
  [key(R.certificatesigningrequests), certificateSigningRequestPrinter],
  [key(R.jobs), jobPrinter],
  [key(R.cronjobs), cronJobPrinter],
  [key(R.daemonsets), daemonSetPrinter],
  [key(R.statefulsets), statefulSetPrinter],
  [key(R.controllerrevisions), controllerRevisionPrinter],
  [key(R.persistentvolumes), storage.persistentVolumePrinter],
  [key(R.persistentvolumeclaims), storage.persistentVolumeClaimPrinter],
  [key(R.storageclasses), storage.storageClassPrinter],
  [key(R.csidrivers), storage.csiDriverPrinter],
  [key(R.csinodes), storage.csiNodePrinter],
  [key(R.volumeattachments), storage.volumeAttachmentPrinter],
  [key(R.poddisruptionbudgets), policy.podDisruptionBudgetPrinter],
  [key(R.replicationcontrollers), policy.replicationControllerPrinter],
  [key(R.podtemplates), policy.podTemplatePrinter],
  [key(R.limitranges), policy.limitRangePrinter],
  [key(R.resourcequotas), policy.resourceQuotaPrinter],
  [key(R.ingresses), policy.ingressPrinter],
  [key(R.ingressclasses), policy.ingressClassPrinter],
  [key(R.networkpolicies), policy.networkPolicyPrinter],
  [key(R.runtimeclasses), policy.runtimeClassPrinter],
  [key(R.mutatingwebhookconfigurations), webhookConfigurationPrinter],
  [key(R.validatingwebhookconfigurations), webhookConfigurationPrinter],
  [key(R.customresourcedefinitions), customResourceDefinitionPrinter],
  [key(R.apiservices), apiServicePrinter],
]);

export function printerFor(r: ResourceInfo): TablePrinter | undefined {
  return PRINTERS.get(key(r));
}

export { humanDuration, since } from './duration.ts';
