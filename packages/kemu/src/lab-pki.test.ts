import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labPkiFiles, prepareBootstrappingKubelet } from './lab-pki.ts';

describe('prepareBootstrappingKubelet', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const lab = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-lab-pki-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'pki'));
    return dir;
  };
  const preIssued = (dir: string, node: string, cert: string) => {
    fs.writeFileSync(path.join(dir, 'pki', `kubelet-${node}.pem`), cert);
    fs.writeFileSync(path.join(dir, 'pki', `kubelet-${node}-key.pem`), 'KEY');
  };

  it('drops the kubeconfig and certificate kemu issued in a run without bootstrapping, and makes the cert dir', () => {
    const dir = lab();
    preIssued(dir, 'worker-0', 'CERT\n');
    const kc = labPkiFiles(dir).kubeletKubeconfig('worker-0');
    fs.writeFileSync(kc, `users:\n- name: system:node:worker-0\n  user:\n    client-certificate-data: ${Buffer.from('CERT\n').toString('base64')}\n`);
    expect(prepareBootstrappingKubelet(dir, 'worker-0')).toBe(true);
    expect(fs.existsSync(kc)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'pki', 'kubelet-worker-0.pem'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'pki', 'kubelet-worker-0-key.pem'))).toBe(false);
    expect(fs.statSync(labPkiFiles(dir).kubeletCertDir('worker-0')).isDirectory()).toBe(true);
  });

  it('keeps a kubeconfig the kubelet wrote after bootstrapping', () => {
    const dir = lab();
    preIssued(dir, 'worker-1', 'OLD CERT\n');
    const kc = labPkiFiles(dir).kubeletKubeconfig('worker-1');
    const written = `users:\n- name: default-auth\n  user:\n    client-certificate: ${labPkiFiles(dir).kubeletCertDir('worker-1')}/kubelet-client-current.pem\n`;
    fs.writeFileSync(kc, written);
    expect(prepareBootstrappingKubelet(dir, 'worker-1')).toBe(false);
    expect(fs.readFileSync(kc, 'utf8')).toBe(written);
    expect(prepareBootstrappingKubelet(dir, 'worker-2')).toBe(false);
  });
});
