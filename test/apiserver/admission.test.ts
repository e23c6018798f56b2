// kube-apiserver as a process with seed 003's admission flags: it starts and serves, names the plugins it
// does not implement, and the real kubectl prints PodSecurity's refusal as Kubernetes words it. A name
// Kubernetes does not know stops the server with its error text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startProcess } from '@kemu/base/testing/processes';
import { startApiserver, type ApiserverProc } from '../support/apiserver.ts';
import { writeKubeconfig } from '../support/kubeconfig.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

const SEED_003_ADMISSION = '--enable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultStorageClass,DefaultTolerationSeconds,NodeRestriction,ResourceQuota';

let dir: string;
let apiserver: ApiserverProc | undefined;
let env: NodeJS.ProcessEnv;
const kubectl = (...args: string[]) => runKubectl(env, args);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-admission-'));
  apiserver = await startApiserver('apiserver', path.join(dir, 'state.db'), { extra: ['--allow-privileged=true', SEED_003_ADMISSION] });
  env = kubectlEnv(dir, writeKubeconfig(path.join(dir, 'kubeconfig'), apiserver.url));
}, 60_000);

afterAll(async () => {
  await apiserver?.proc.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('kube-apiserver admission flags', () => {
  it("starts with seed 003's list and logs the plugins not in effect", () => {
    const out = apiserver?.proc.output() ?? '';
    expect(out).toContain('LimitRanger');
    expect(out).toContain('not in effect');
  });

  it('a pod-security.kubernetes.io/enforce=restricted namespace refuses a plain nginx pod, as kubectl prints it', async () => {
    expect((await kubectl('create', 'namespace', 'locked')).code).toBe(0);
    expect((await kubectl('label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce=restricted')).stdout.trim()).toBe('namespace/locked labeled');
    const r = await kubectl('run', 'nginx', '--image=nginx', '-n', 'locked');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server (Forbidden): pods "nginx" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it('a warn=baseline namespace admits a privileged pod with the warning kubectl prints', async () => {
    expect((await kubectl('create', 'namespace', 'warned')).code).toBe(0);
    expect((await kubectl('label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline')).code).toBe(0);
    const r = await kubectl('run', 'priv', '--image=nginx', '-n', 'warned', '--overrides={"spec":{"containers":[{"name":"priv","image":"nginx","securityContext":{"privileged":true}}]}}');
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe('Warning: would violate PodSecurity "baseline:latest": privileged (container "priv" must not set securityContext.privileged=true)');
    expect(r.stdout.trim()).toBe('pod/priv created');
  });

  it('labelling a namespace enforce=restricted names the pods already there that violate it', async () => {
    expect((await kubectl('create', 'namespace', 'existing')).code).toBe(0);
    for (const name of ['a', 'b']) expect((await kubectl('run', name, '--image=nginx', '-n', 'existing')).code).toBe(0);
    const r = await kubectl('label', 'namespace', 'existing', 'pod-security.kubernetes.io/enforce=restricted');
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      'Warning: existing pods in namespace "existing" violate the new PodSecurity enforce level "restricted:latest"',
      'Warning: a (and 1 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    expect(r.stdout.trim()).toBe('namespace/existing labeled');
  });

  it('an unknown plugin name stops kube-apiserver with exit 1 and Kubernetes\' error', async () => {
    const p = startProcess('apiserver-bad', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', '--datastore-endpoint=memory://', '--enable-admission-plugins=NamespaceLifecycle,Foo']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('Error: enable-admission-plugins plugin "Foo" is unknown');
  });
});
