// `kemu pki` as a user runs it: what it prints, what it leaves in the data dir, its exit codes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '@kemu/base/testing/processes';

function kemu(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN.kemu, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('kemu pki', () => {
  let dir: string;
  let first: ReturnType<typeof kemu>;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-pki-cli-'));
    first = kemu('pki', '--data-dir', dir, '--apiserver-addresses', '127.0.0.2,127.0.0.3', '--extra-sans', 'kemu.example');
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("makes the PKI and the kubeconfigs, saying so in kubeadm's words", () => {
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    const lines = first.out.trim().split('\n');
    expect(lines[0]).toBe(`[certs] Using certificateDir folder "${path.join(dir, 'pki')}"`);
    expect(lines).toContain('[certs] Generating "ca" certificate and key');
    expect(lines).toContain('[certs] Generating "admin" certificate and key');
    expect(lines).toContain(
      '[certs] apiserver serving cert is signed for DNS names [kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster kubernetes.default.svc.cluster.local kemu.example] and IPs [10.96.0.1 127.0.0.1 127.0.0.2 127.0.0.3]',
    );
    expect(lines).toContain('[certs] Generating "sa" key and public key');
    expect(lines.at(-1)).toBe('[kubeconfig] Writing "scheduler.kubeconfig" kubeconfig file');
    expect(fs.readFileSync(path.join(dir, 'admin.kubeconfig'), 'utf8')).toContain('server: https://127.0.0.1:6443');
  });

  it('keeps what is there on a second run', () => {
    const again = kemu('pki', '--data-dir', dir, '--apiserver-addresses', '127.0.0.2,127.0.0.3', '--extra-sans', 'kemu.example');
    expect(again.code).toBe(0);
    expect(again.out).not.toContain('Generating');
    expect(again.out).toContain('[certs] Using existing ca certificate authority\n');
    expect(again.out).toContain('[certs] Using existing apiserver certificate and key on disk\n');
    expect(again.out).toContain(`[kubeconfig] Using existing kubeconfig file: "${path.join(dir, 'admin.kubeconfig')}"\n`);
  }, 60_000);

  it('exits 2 on a bad flag value and 1 on a PKI it cannot use', () => {
    const bad = kemu('pki', '--data-dir', dir, '--extra-sans', 'a b');
    expect([bad.code, bad.err]).toEqual([2, 'Error: invalid SAN "a b": want an IP address or a DNS name\n']);
    fs.copyFileSync(path.join(dir, 'pki', 'admin.pem'), path.join(dir, 'pki', 'ca.pem'));
    const broken = kemu('pki', '--data-dir', dir);
    expect(broken.code).toBe(1);
    expect(broken.err).toBe(`Error: ${path.join(dir, 'pki', 'ca.pem')} is not a CA certificate (Basic Constraints CA:TRUE with Certificate Sign); regenerate with --force\n`);
  }, 60_000);
});
