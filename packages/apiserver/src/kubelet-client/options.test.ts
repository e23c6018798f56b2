// The --kubelet-* flags: Kubernetes' defaults, the files checked at start-up with kube-apiserver's words,
// and the client configuration they make.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClusterPki } from '@kemu/pki';
import { checkKubeletClientFlags, KUBELET_CLIENT_FLAGS, kubeletClientConfig, type KubeletClientFlagValues } from './options.ts';

const defaults = (): KubeletClientFlagValues =>
  Object.fromEntries(Object.entries(KUBELET_CLIENT_FLAGS).map(([k, v]) => [k, Array.isArray(v.default) ? [...v.default] : v.default])) as unknown as KubeletClientFlagValues;

describe('--kubelet-* flags', () => {
  let dir = '';
  let pki = '';
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-kubelet-client-'));
    await ensureClusterPki({ dataDir: dir });
    pki = path.join(dir, 'pki');
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has Kubernetes\' defaults, which pass and make a client that presents nothing and verifies nothing', () => {
    expect(KUBELET_CLIENT_FLAGS['kubelet-preferred-address-types'].default).toEqual(['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);
    expect(KUBELET_CLIENT_FLAGS['kubelet-timeout'].default).toBe(5000);
    expect(checkKubeletClientFlags(defaults())).toBeUndefined();
    expect(kubeletClientConfig(defaults())).toEqual({ preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'], defaultPort: 10250, dialTimeoutMs: 5000 });
  });

  it('loads seed 003\'s pair (apiserver.pem as the kubelet client certificate) and a CA, refusing what kube-apiserver refuses', () => {
    const f = { ...defaults(), 'kubelet-client-certificate': path.join(pki, 'apiserver.pem'), 'kubelet-client-key': path.join(pki, 'apiserver-key.pem'), 'kubelet-certificate-authority': path.join(pki, 'ca.pem'), 'kubelet-preferred-address-types': ['InternalIP', 'ExternalIP', 'Hostname'] };
    expect(checkKubeletClientFlags(f)).toBeUndefined();
    const cfg = kubeletClientConfig(f);
    expect([cfg.cert?.toString(), cfg.key?.toString(), cfg.ca?.toString(), cfg.preferredAddressTypes]).toEqual([
      fs.readFileSync(path.join(pki, 'apiserver.pem'), 'utf8'),
      fs.readFileSync(path.join(pki, 'apiserver-key.pem'), 'utf8'),
      fs.readFileSync(path.join(pki, 'ca.pem'), 'utf8'),
      ['InternalIP', 'ExternalIP', 'Hostname'],
    ]);
    expect(checkKubeletClientFlags({ ...f, 'kubelet-client-certificate': path.join(pki, 'nope.pem') })).toEqual({ code: 1, message: `open ${path.join(pki, 'nope.pem')}: no such file or directory` });
    expect(checkKubeletClientFlags({ ...f, 'kubelet-client-key': path.join(pki, 'admin-key.pem') })?.message).toMatch(/^invalid client certificate\/key pair .*apiserver\.pem, .*admin-key\.pem: .*does not match/);
    expect(checkKubeletClientFlags({ ...f, 'kubelet-certificate-authority': path.join(pki, 'sa.pub') })).toEqual({ code: 1, message: 'unable to load root certificates: unable to parse bytes as PEM block' });
    // One of the pair alone is not used by Kubernetes, so not loaded.
    expect(checkKubeletClientFlags({ ...defaults(), 'kubelet-client-certificate': '/nonexistent.pem' })).toBeUndefined();
    expect(kubeletClientConfig({ ...defaults(), 'kubelet-client-certificate': path.join(pki, 'apiserver.pem') }).cert).toBeUndefined();
  });
});
