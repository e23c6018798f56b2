import { describe, expect, it } from 'vitest';
import { admissionChain, ALL_ORDERED_PLUGINS, enabledPluginNames, IMPLEMENTED_PLUGINS, validateAdmissionFlags } from './plugins.ts';

// The list a kubeadm-less install (seed 003) passes to kube-apiserver.
const SEED_003 = ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'NodeRestriction', 'ResourceQuota'];

describe('admission plugin registry', () => {
  it('every implemented plugin has a Kubernetes name and a place in the fixed order', () => {
    for (const name of IMPLEMENTED_PLUGINS.keys()) expect(ALL_ORDERED_PLUGINS).toContain(name);
  });

  it.each([
    { case: 'no flags: the default-on plugins kemu implements', enable: [], disable: [], want: ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota'] },
    { case: 'order of the flag does not matter', enable: ['AlwaysPullImages', 'NodeRestriction'], disable: [], want: ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'AlwaysPullImages', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota'] },
    { case: 'disable drops a default plugin', enable: [], disable: ['PodSecurity', 'Priority'], want: ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota'] },
    { case: "seed 003's list adds NodeRestriction to the defaults", enable: SEED_003, disable: [], want: ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota'] },
  ])('$case', ({ enable, disable, want }) => {
    expect(validateAdmissionFlags(enable, disable)).toEqual([]);
    expect(admissionChain(enable, disable).plugins.map((p) => p.name)).toEqual(want);
  });

  it('names the enabled plugins kemu does not implement as not in effect, in order', () => {
    const { notInEffect } = admissionChain(SEED_003, []);
    expect(notInEffect).toEqual(expect.arrayContaining(['RuntimeClass', 'DefaultIngressClass']));
    for (const p of ['MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook']) expect(notInEffect).not.toContain(p);
    expect(notInEffect.indexOf('RuntimeClass')).toBeLessThan(notInEffect.indexOf('DefaultIngressClass'));
    expect(enabledPluginNames(SEED_003).at(-1)).toBe('ResourceQuota');
  });

  it.each([
    { enable: ['Foo'], disable: [], errs: ['enable-admission-plugins plugin "Foo" is unknown'] },
    { enable: [], disable: ['Bar'], errs: ['disable-admission-plugins plugin "Bar" is unknown'] },
    { enable: ['PodSecurity', 'AlwaysPullImages'], disable: ['PodSecurity', 'AlwaysPullImages'], errs: ['[AlwaysPullImages PodSecurity] in enable-admission-plugins and disable-admission-plugins overlapped'] },
  ])('refuses $enable / $disable with Kubernetes\' error', ({ enable, disable, errs }) => {
    expect(validateAdmissionFlags(enable, disable)).toEqual(errs);
  });
});
