import { describe, expect, it } from 'vitest';
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { evaluate, type Level } from './pod-security-checks.ts';
import { podSecurityPlugin, policyOf } from './pod-security.ts';
import type { AdmissionAttributes, AdmissionContext } from './types.ts';

const nginx = { containers: [{ name: 'nginx', image: 'nginx' }] };
const hardened = {
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
};

describe('Pod Security Standards checks', () => {
  it.each<{ level: Level; spec: Record<string, unknown>; want: string }>([
    { level: 'privileged', spec: { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] }, want: '' },
    { level: 'baseline', spec: nginx, want: '' },
    {
      level: 'restricted',
      spec: nginx,
      want: 'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    },
    { level: 'restricted', spec: hardened, want: '' },
    {
      level: 'baseline',
      spec: {
        hostNetwork: true,
        hostPID: true,
        volumes: [{ name: 'proc', hostPath: { path: '/proc' } }, { name: 'sys', hostPath: { path: '/sys' } }],
        containers: [{ name: 'node-exporter', ports: [{ containerPort: 9100, hostPort: 9100 }] }],
      },
      want: 'host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volumes "proc", "sys"), hostPort (container "node-exporter" uses hostPort 9100)',
    },
    {
      level: 'baseline',
      spec: { containers: [{ name: 'a', securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN', 'NET_RAW', 'CHOWN'] } } }, { name: 'b', securityContext: { privileged: true } }] },
      want: 'non-default capabilities (container "a" must not include "NET_ADMIN", "NET_RAW" in securityContext.capabilities.add), privileged (containers "a", "b" must not set securityContext.privileged=true)',
    },
    {
      level: 'restricted',
      spec: { ...hardened, volumes: [{ name: 'h', hostPath: { path: '/' } }], securityContext: { runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: 'Unconfined' } } },
      want: 'restricted volume types (volume "h" uses restricted volume type "hostPath"), runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod must not set runAsUser=0), seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
    },
    { level: 'baseline', spec: { securityContext: { seccompProfile: { type: 'Unconfined' }, sysctls: [{ name: 'kernel.msgmax', value: '1' }] }, containers: [{ name: 'c' }] }, want: 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"), forbidden sysctls (kernel.msgmax)' },
  ])('$level: $want', ({ level, spec, want }) => {
    expect(evaluate(level, {}, spec)).toBe(want);
  });
});

describe('PodSecurity admission', () => {
  const ns = (labels: Record<string, string>): AdmissionContext => ({ getNamespace: async (name) => ({ metadata: { name, labels } }) });
  const create = (resource: ResourceInfo, object: KubeObject, warnings: string[]): AdmissionAttributes => ({
    operation: 'CREATE',
    resource,
    namespace: 'ns',
    name: object.metadata.name ?? '',
    object,
    dryRun: false,
    warn: (t) => warnings.push(t),
  });
  const pod = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'x', namespace: 'ns' }, spec: structuredClone(spec) });
  const restrictedText =
    'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

  it.each<{ case: string; labels: Record<string, string>; refused: string | undefined; warnings: string[] }>([
    { case: 'no labels: privileged, anything goes', labels: {}, refused: undefined, warnings: [] },
    { case: 'enforce restricted refuses, no repeated warning', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' }, refused: `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${restrictedText}`, warnings: [] },
    { case: 'enforce with a version', labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.31' }, refused: `pods "x" is forbidden: violates PodSecurity "restricted:v1.31": ${restrictedText}`, warnings: [] },
    { case: 'warn restricted warns and admits', labels: { 'pod-security.kubernetes.io/warn': 'restricted' }, refused: undefined, warnings: [`would violate PodSecurity "restricted:latest": ${restrictedText}`] },
    { case: 'enforce baseline passes nginx, audit is accepted', labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/audit': 'restricted' }, refused: undefined, warnings: [] },
  ])('$case', async ({ labels, refused, warnings: want }) => {
    const warnings: string[] = [];
    const run = podSecurityPlugin.validate?.(create(R.pods, pod({ containers: [{ name: 'nginx', image: 'nginx' }] }), warnings), ns(labels));
    if (refused) {
      await expect(run).rejects.toThrow(StatusError);
      await run?.catch((e: StatusError) => {
        expect(e.code).toBe(403);
        expect(e.message).toBe(refused);
      });
    } else await run;
    expect(warnings).toEqual(want);
  });

  it('judges a Deployment\'s pod template for warn only', async () => {
    const warnings: string[] = [];
    const deploy: KubeObject = { metadata: { name: 'web', namespace: 'ns' }, spec: { template: { metadata: {}, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } };
    await podSecurityPlugin.validate?.(create(R.deployments, deploy, warnings), ns({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' }));
    expect(warnings).toEqual([`would violate PodSecurity "restricted:latest": ${restrictedText}`]);
  });

  it('an update that changes no image is not judged again', async () => {
    const warnings: string[] = [];
    const old = pod({ containers: [{ name: 'nginx', image: 'nginx' }] });
    const next = structuredClone(old);
    next.metadata.labels = { a: 'b' };
    await podSecurityPlugin.validate?.({ ...create(R.pods, next, warnings), operation: 'UPDATE', oldObject: old }, ns({ 'pod-security.kubernetes.io/enforce': 'restricted' }));
  });

  it.each<{ labels: Record<string, string>; want: string }>([
    { labels: { 'pod-security.kubernetes.io/enforce': 'bogus' }, want: 'restricted:latest' },
    { labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.31' }, want: 'baseline:v1.31' },
    { labels: {}, want: 'privileged:latest' },
  ])('policy of $labels is $want', ({ labels, want }) => {
    const p = policyOf(labels, 'enforce');
    expect(`${p.level}:${p.version}`).toBe(want);
  });
});

describe('PodSecurity on Namespaces', () => {
  const nsAttrs = (labels: Record<string, string>, old?: Record<string, string>): AdmissionAttributes => ({
    operation: old ? 'UPDATE' : 'CREATE',
    resource: R.namespaces,
    name: 'typo',
    object: { metadata: { name: 'typo', labels } },
    ...(old ? { oldObject: { metadata: { name: 'typo', labels: old } } } : {}),
    dryRun: false,
  });
  it.each<{ labels: Record<string, string>; old?: Record<string, string>; refused?: string }>([
    { labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn-version': 'v1.31' } },
    { labels: { 'pod-security.kubernetes.io/enforce': 'strict' }, refused: 'Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted' },
    { labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': '1.31' }, refused: 'Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.31": must be "latest" or "v1.x"' },
    { labels: { 'pod-security.kubernetes.io/enforce': 'strict', other: 'x' }, old: { 'pod-security.kubernetes.io/enforce': 'strict' } },
  ])('$labels', async ({ labels, old, refused }) => {
    const run = podSecurityPlugin.validate?.(nsAttrs(labels, old), {});
    if (!refused) return run;
    const err = await Promise.resolve(run).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(422);
    expect((err as StatusError).message).toBe(refused);
  });
});

describe('PodSecurity on an enforce level change', () => {
  const pods: KubeObject[] = [
    { metadata: { name: 'web-2' }, spec: { containers: [{ name: 'c' }] } },
    { metadata: { name: 'web-1' }, spec: { containers: [{ name: 'c' }] } },
    { metadata: { name: 'host' }, spec: { hostNetwork: true, containers: [{ name: 'c' }] } },
    { metadata: { name: 'ok' }, spec: hardened },
  ];
  const ctx: AdmissionContext = { listPods: async () => pods };
  const update = (labels: Record<string, string>, old: Record<string, string>, warnings: string[]): AdmissionAttributes => ({
    operation: 'UPDATE',
    resource: R.namespaces,
    name: 'team',
    object: { metadata: { name: 'team', labels } },
    oldObject: { metadata: { name: 'team', labels: old } },
    dryRun: false,
    warn: (t) => warnings.push(t),
  });

  it.each<{ labels: Record<string, string>; old: Record<string, string>; want: string[] }>([
    {
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
      old: {},
      want: [
        'existing pods in namespace "team" violate the new PodSecurity enforce level "restricted:latest"',
        'web-1 (and 1 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
        'host: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      ],
    },
    { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' }, old: {}, want: ['existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"', 'host: host namespaces'] },
    { labels: { 'pod-security.kubernetes.io/enforce': 'baseline', a: 'b' }, old: { 'pod-security.kubernetes.io/enforce': 'baseline' }, want: [] },
    { labels: { 'pod-security.kubernetes.io/warn': 'restricted' }, old: {}, want: [] },
  ])('$labels', async ({ labels, old, want }) => {
    const warnings: string[] = [];
    await podSecurityPlugin.validate?.(update(labels, old, warnings), ctx);
    expect(warnings).toEqual(want);
  });
});
