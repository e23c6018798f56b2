// The admission plugins by Kubernetes name, in kube-apiserver's fixed order (AllOrderedPlugins, 1.31),
// with its default-on set, and --enable-admission-plugins / --disable-admission-plugins resolved against
// them. Kubernetes' plugins that kemu does not implement are accepted by name and reported as not in effect.
import type { AdmissionPlugin } from './types.ts';
import { alwaysPullImagesPlugin } from './always-pull-images.ts';
import { certificateApprovalPlugin } from './certificate-approval.ts';
import { certificateSigningPlugin } from './certificate-signing.ts';
import { certificateSubjectRestrictionPlugin } from './certificate-subject-restriction.ts';
import { defaultTolerationSecondsPlugin } from './default-toleration-seconds.ts';
import { namespaceLifecyclePlugin } from './namespace-lifecycle.ts';
import { nodeRestrictionPlugin } from './node-restriction.ts';
import { podSecurityPlugin } from './pod-security.ts';
import { priorityPlugin } from './priority.ts';
import { serviceAccountPlugin } from './service-account.ts';
import { defaultStorageClassPlugin } from './default-storage-class.ts';
import { storageObjectInUseProtectionPlugin } from './storage-object-in-use-protection.ts';
import { limitRangerPlugin } from './limit-ranger.ts';
import { resourceQuotaPlugin } from './resource-quota.ts';
import { mutatingAdmissionWebhookPlugin, validatingAdmissionWebhookPlugin } from './webhook/dispatch.ts';
import { validatingAdmissionPolicyPlugin } from './validating-admission-policy.ts';

/** kube-apiserver's AllOrderedPlugins: the order plugins run in, whatever order the flags name them. */
export const ALL_ORDERED_PLUGINS = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

/** The plugins kube-apiserver enables when no flag says otherwise (the complement of DefaultOffAdmissionPlugins). */
export const DEFAULT_ON_PLUGINS: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodSecurity',
  'ValidatingAdmissionPolicy',
]);

/** The plugins kemu implements, by name. */
export const IMPLEMENTED_PLUGINS: ReadonlyMap<string, AdmissionPlugin> = new Map(
  [
    namespaceLifecyclePlugin,
    serviceAccountPlugin,
    nodeRestrictionPlugin,
    alwaysPullImagesPlugin,
    podSecurityPlugin,
    priorityPlugin,
    defaultTolerationSecondsPlugin,
    certificateApprovalPlugin,
    certificateSigningPlugin,
    certificateSubjectRestrictionPlugin,
    defaultStorageClassPlugin,
    storageObjectInUseProtectionPlugin,
    limitRangerPlugin,
    mutatingAdmissionWebhookPlugin,
    validatingAdmissionPolicyPlugin,
    validatingAdmissionWebhookPlugin,
    resourceQuotaPlugin,
  ].map((p) => [p.name, p]),
);

const KNOWN: ReadonlySet<string> = new Set(ALL_ORDERED_PLUGINS);

/** Kubernetes' flag errors (AdmissionOptions.Validate): unknown names, and a name both enabled and disabled. */
export function validateAdmissionFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const errs: string[] = [];
  for (const n of enable) if (!KNOWN.has(n)) errs.push(`enable-admission-plugins plugin "${n}" is unknown`);
  for (const n of disable) if (!KNOWN.has(n)) errs.push(`disable-admission-plugins plugin "${n}" is unknown`);
  const both = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (both.length > 0) errs.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errs;
}

/** The enabled plugin names in their fixed order: the defaults, plus enable, minus disable (enable wins). */
export function enabledPluginNames(enable: readonly string[] = [], disable: readonly string[] = []): string[] {
  return ALL_ORDERED_PLUGINS.filter((n) => enable.includes(n) || (DEFAULT_ON_PLUGINS.has(n) && !disable.includes(n)));
}

export interface AdmissionChain {
  /** The plugins that run, in order. */
  plugins: AdmissionPlugin[];
  /** Enabled by name but not implemented by kemu: accepted, nothing done. */
  notInEffect: string[];
}

export function admissionChain(enable: readonly string[] = [], disable: readonly string[] = []): AdmissionChain {
  const plugins: AdmissionPlugin[] = [];
  const notInEffect: string[] = [];
  for (const n of enabledPluginNames(enable, disable)) {
    const p = IMPLEMENTED_PLUGINS.get(n);
    if (p) plugins.push(p);
    else notInEffect.push(n);
  }
  return { plugins, notInEffect };
}
