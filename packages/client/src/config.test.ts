import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadClientConfig, parseKubeconfig } from './config.ts';

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: kemu
clusters:
- name: other
  cluster: { server: https://other:1 }
- name: kemu
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: ca.crt
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: ${Buffer.from('CERT').toString('base64')}
    client-key-data: ${Buffer.from('KEY').toString('base64')}
    token: abc
contexts:
- name: kemu
  context: { cluster: kemu, user: admin }
`;

describe('kubeconfig', () => {
  it('follows current-context to the cluster and user; files are relative to the kubeconfig', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
    try {
      fs.writeFileSync(path.join(dir, 'ca.crt'), 'CA');
      fs.writeFileSync(path.join(dir, 'config'), KUBECONFIG);
      const cfg = loadClientConfig({ kubeconfig: path.join(dir, 'config') });
      expect(cfg.server).toBe('https://127.0.0.1:6443');
      expect(cfg.caData?.toString()).toBe('CA');
      expect(cfg.certData?.toString()).toBe('CERT');
      expect(cfg.keyData?.toString()).toBe('KEY');
      expect(cfg.token).toBe('abc');
      expect(cfg.insecureSkipTLSVerify).toBe(true);
      expect(cfg.qps).toBe(50);
      expect(cfg.burst).toBe(100);
      const over = loadClientConfig({ kubeconfig: path.join(dir, 'config'), master: 'http://127.0.0.1:9', qps: 5 });
      expect(over.server).toBe('http://127.0.0.1:9');
      expect(over.token).toBe('abc');
      expect(over.qps).toBe(5);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('errors', () => {
    expect(() => loadClientConfig({})).toThrow(/neither --kubeconfig nor --master/);
    expect(() => loadClientConfig({ master: '127.0.0.1:6443' })).toThrow(/must start with http/);
    expect(() => parseKubeconfig('current-context: nope\ncontexts: []\n', '/')).toThrow(/context "nope" not found/);
    expect(() => parseKubeconfig('- a\n', '/')).toThrow(/not a mapping/);
  });

  it('master alone is enough', () => {
    expect(loadClientConfig({ master: 'http://127.0.0.1:8080' })).toMatchObject({ server: 'http://127.0.0.1:8080', qps: 50, burst: 100 });
  });
});
