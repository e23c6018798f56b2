// The cluster PKI as a user meets it: seed 003's files in DIR/pki/, judged by openssl, used by node:tls and by
// kubectl (Go's verifier), and kept, completed or re-issued on later runs.
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLUSTER_CAS, CLUSTER_KUBECONFIGS, CLUSTER_LEAVES, ensureClusterPki, type ClusterPkiOptions, type PkiAction } from './cluster-pki.ts';
import { PkiError } from './errors.ts';
import { has, noOpenssl, openssl, opensslVerify, x509Text } from './testing/openssl.ts';

const OPTS = { apiserverAddresses: ['127.0.0.2', '127.0.0.3'], extraSans: ['kemu.example', '192.0.2.10'] } satisfies Partial<ClusterPkiOptions>;
const HOUR = 3_600_000;
const tmp: string[] = [];
let base: string;
let first: PkiAction[];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-pki-'));
  tmp.push(d);
  return d;
}
const pki = (dir: string, f: string) => path.join(dir, 'pki', f);
const read = (f: string) => fs.readFileSync(f, 'utf8');

/** A copy of the base PKI for a test that changes it. */
function copyOfBase(): string {
  const d = tmpDir();
  fs.cpSync(base, d, { recursive: true });
  return d;
}

beforeAll(async () => {
  base = tmpDir();
  first = await ensureClusterPki({ dataDir: base, ...OPTS });
}, 60_000);
afterAll(() => {
  for (const d of tmp) fs.rmSync(d, { recursive: true, force: true });
});

describe('ensureClusterPki: a new PKI', () => {
  it('writes seed 003 files under its names: keys and kubeconfigs 0600, certificates 0644', () => {
    expect(first.every((a) => a.action === 'created')).toBe(true);
    const names = [...CLUSTER_CAS, ...CLUSTER_LEAVES].map((c) => c.name);
    expect(names).toEqual(['ca', 'front-proxy-ca', 'apiserver', 'front-proxy-client', 'controller-manager', 'scheduler', 'kube-proxy', 'admin', 'apiserver-kubelet-client']);
    const want = [...names.flatMap((n) => [`${n}.pem`, `${n}-key.pem`, `${n}.csr`]), 'sa.key', 'sa.pub'].sort();
    expect(fs.readdirSync(path.join(base, 'pki')).sort()).toEqual(want);
    const mode = (f: string) => fs.statSync(f).mode & 0o777;
    for (const n of names) {
      expect(mode(pki(base, `${n}-key.pem`)), n).toBe(0o600);
      expect(mode(pki(base, `${n}.pem`)), n).toBe(0o644);
    }
    expect(mode(pki(base, 'sa.key'))).toBe(0o600);
    expect(mode(pki(base, 'sa.pub'))).toBe(0o644);
    for (const k of ['admin.kubeconfig', 'controller-manager.kubeconfig', 'scheduler.kubeconfig']) expect(mode(path.join(base, k)), k).toBe(0o600);
    expect(read(pki(base, 'ca-key.pem'))).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/); // PKCS#1, as cfssljson writes
  });

  it.skipIf(noOpenssl)('every certificate verifies against its CA with openssl verify -CAfile', () => {
    for (const c of CLUSTER_CAS) expect(opensslVerify(pki(base, `${c.name}.pem`), pki(base, `${c.name}.pem`))).toBe(`${pki(base, `${c.name}.pem`)}: OK`);
    for (const l of CLUSTER_LEAVES) expect(opensslVerify(pki(base, `${l.ca}.pem`), pki(base, `${l.name}.pem`))).toBe(`${pki(base, `${l.name}.pem`)}: OK`);
    // and not against the other CA
    expect(opensslVerify(pki(base, 'front-proxy-ca.pem'), pki(base, 'admin.pem'))).toMatch(/unable to get local issuer certificate/);
  });

  it.skipIf(noOpenssl)('subjects are the seed CSR JSONs; usages, constraints and expiry as cfssl gives them', () => {
    const seed = (o: string, cn: string) => `C = CN, ST = Beijing, L = Beijing, O = ${o}, OU = Kubernetes-manual, CN = ${cn}`;
    const subjects: Record<string, string> = {
      ca: seed('Kubernetes', 'kubernetes'),
      'front-proxy-ca': 'CN = kubernetes',
      apiserver: seed('Kubernetes', 'kube-apiserver'),
      'front-proxy-client': 'CN = front-proxy-client',
      'controller-manager': seed('system:kube-controller-manager', 'system:kube-controller-manager'),
      scheduler: seed('system:kube-scheduler', 'system:kube-scheduler'),
      'kube-proxy': seed('system:kube-proxy', 'system:kube-proxy'),
      admin: seed('system:masters', 'kubernetes-admin'),
      'apiserver-kubelet-client': 'O = system:masters, CN = kube-apiserver-kubelet-client',
    };
    for (const [name, subject] of Object.entries(subjects)) {
      const text = x509Text(pki(base, `${name}.pem`));
      expect(text, name).toContain(`Subject: ${subject}\n`);
      expect(text, name).toContain('Signature Algorithm: sha256WithRSAEncryption');
      expect(text, name).toContain('Public-Key: (2048 bit)');
      const isCA = name === 'ca' || name === 'front-proxy-ca';
      if (isCA) {
        expect(text, name).toMatch(/X509v3 Key Usage: critical\n\s+Certificate Sign, CRL Sign\n/);
        expect(text, name).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:TRUE\n/);
        expect(text, name).not.toContain('Authority Key Identifier');
      } else {
        expect(text, name).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment\n/);
        expect(text, name).toMatch(/X509v3 Extended Key Usage: \n\s+TLS Web Server Authentication, TLS Web Client Authentication\n/);
        expect(text, name).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE\n/);
        expect(text, name).toContain('X509v3 Authority Key Identifier');
      }
      expect(text, name).toContain('X509v3 Subject Key Identifier');
      const c = new crypto.X509Certificate(read(pki(base, `${name}.pem`)));
      expect(Date.parse(c.validTo) - Date.parse(c.validFrom), name).toBe(876_000 * HOUR);
      // cfssl back-dates notBefore 5 minutes, on a whole minute
      expect(Date.parse(c.validFrom) % 60_000, name).toBe(0);
      expect(Date.now() - Date.parse(c.validFrom), name).toBeGreaterThan(4 * 60_000);
    }
  });

  it.skipIf(noOpenssl)('apiserver.pem names the service IP, the balancer, every apiserver, the kubernetes names and --extra-sans', () => {
    const out = openssl(['x509', '-in', pki(base, 'apiserver.pem'), '-noout', '-ext', 'subjectAltName']);
    expect(out.split('\n')[1]?.trim()).toBe(
      'DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster, DNS:kubernetes.default.svc.cluster.local, DNS:kemu.example, ' +
        'IP Address:10.96.0.1, IP Address:127.0.0.1, IP Address:127.0.0.2, IP Address:127.0.0.3, IP Address:192.0.2.10',
    );
    expect(x509Text(pki(base, 'admin.pem'))).not.toContain('Subject Alternative Name');
  });

  it.skipIf(noOpenssl)('sa.key is an RSA 2048 PKCS#8 key and sa.pub its public key, as openssl genrsa and rsa -pubout write them', () => {
    expect(read(pki(base, 'sa.key'))).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(openssl(['rsa', '-in', pki(base, 'sa.key'), '-pubout'], undefined).trim()).toBe(read(pki(base, 'sa.pub')).trim());
    expect(openssl(['rsa', '-in', pki(base, 'sa.key'), '-noout', '-text'])).toContain('Private-Key: (2048 bit, 2 primes)');
  });

  it('kubeconfigs embed the CA, the client certificate and key, for https://127.0.0.1:6443', () => {
    const users: Record<string, [string, string]> = {
      'admin.kubeconfig': ['kubernetes-admin', 'admin'],
      'kube-proxy.kubeconfig': ['system:kube-proxy', 'kube-proxy'],
      'controller-manager.kubeconfig': ['system:kube-controller-manager', 'controller-manager'],
      'scheduler.kubeconfig': ['system:kube-scheduler', 'scheduler'],
    };
    expect(CLUSTER_KUBECONFIGS.map((k) => k.file)).toEqual(Object.keys(users));
    const b64 = (f: string) => Buffer.from(read(f)).toString('base64');
    for (const [file, [user, cert]] of Object.entries(users)) {
      const kc = parse(read(path.join(base, file))) as Record<string, unknown>;
      expect(kc, file).toEqual({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'kubernetes', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64(pki(base, 'ca.pem')) } }],
        contexts: [{ name: `${user}@kubernetes`, context: { cluster: 'kubernetes', user } }],
        'current-context': `${user}@kubernetes`,
        preferences: {},
        users: [{ name: user, user: { 'client-certificate-data': b64(pki(base, `${cert}.pem`)), 'client-key-data': b64(pki(base, `${cert}-key.pem`)) } }],
      });
    }
  });

  it('a node:tls server with apiserver.pem and a client with admin.pem complete a mutual-TLS handshake', async () => {
    const ca = read(pki(base, 'ca.pem'));
    const server = tls.createServer({ cert: read(pki(base, 'apiserver.pem')), key: read(pki(base, 'apiserver-key.pem')), ca, requestCert: true, rejectUnauthorized: true });
    const peers: tls.PeerCertificate[] = [];
    const refused: string[] = [];
    server.on('tlsClientError', (e) => refused.push(e.message));
    server.on('secureConnection', (s) => {
      peers.push(s.getPeerCertificate());
      s.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const connect = (o: tls.ConnectionOptions) =>
      new Promise<string>((resolve, reject) => {
        let secure = false;
        const s = tls.connect({ host: '127.0.0.1', port, ca, ...o }, () => (secure = true));
        let data = '';
        s.on('data', (d: Buffer) => (data += d.toString()));
        s.on('error', reject);
        s.on('close', () => (secure ? resolve(data) : reject(new Error('closed before the handshake completed'))));
      });
    try {
      const client = { cert: read(pki(base, 'admin.pem')), key: read(pki(base, 'admin-key.pem')) };
      expect(await connect(client)).toBe('ok'); // by IP: 127.0.0.1 is an IP SAN
      expect(await connect({ ...client, servername: 'kubernetes.default.svc' })).toBe('ok');
      expect(peers[0]?.subject).toMatchObject({ CN: 'kubernetes-admin', O: 'system:masters' });
      await expect(connect({ ...client, servername: 'other.example' })).rejects.toThrow(/Hostname\/IP does not match certificate's altnames/);
      // A client certificate from the front-proxy CA is not one the server trusts (TLS 1.2, where the client
      // hears the refusal during the handshake; with 1.3 it comes after the client's side is done).
      const fp = { cert: read(pki(base, 'front-proxy-client.pem')), key: read(pki(base, 'front-proxy-client-key.pem')) };
      await expect(connect({ ...fp, maxVersion: 'TLSv1.2' })).rejects.toThrow(/disconnected before secure TLS connection was established/);
      expect(refused.length).toBeGreaterThan(0);
      expect(peers).toHaveLength(2);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it.skipIf(!has('kubectl'))('kubectl with admin.kubeconfig trusts apiserver.pem and authenticates with admin.pem (Go crypto/x509)', async () => {
    const seen: string[] = [];
    const server = https.createServer(
      { cert: read(pki(base, 'apiserver.pem')), key: read(pki(base, 'apiserver-key.pem')), ca: read(pki(base, 'ca.pem')), requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as tls.TLSSocket).getPeerCertificate();
        seen.push(`${peer.subject.CN} ${req.url}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0' }));
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const kc = path.join(tmpDir(), 'admin.kubeconfig');
      fs.writeFileSync(kc, read(path.join(base, 'admin.kubeconfig')).replace('https://127.0.0.1:6443', `https://127.0.0.1:${port}`));
      const r = await new Promise<{ status: number | null; out: string }>((resolve) => {
        // spawnSync would block the event loop the server answers on
        const child = spawn('kubectl', ['--kubeconfig', kc, 'get', '--raw', '/version']);
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (status) => resolve({ status, out }));
      });
      expect(r.out).toContain('"gitVersion":"v1.31.0"');
      expect(r.status).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const s of seen) expect(s).toMatch(/^kubernetes-admin \/version/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('ensureClusterPki: a PKI already there', () => {
  const snapshot = (dir: string) => new Map(fs.readdirSync(path.join(dir, 'pki')).map((f) => [f, read(pki(dir, f))]));

  it('keeps every valid file untouched', async () => {
    const dir = copyOfBase();
    const before = snapshot(dir);
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS });
    expect(actions.filter((a) => a.action !== 'kept')).toEqual([]);
    expect(actions).toHaveLength(first.length);
    expect(snapshot(dir)).toEqual(before);
  });

  it('makes only what is missing, and rewrites the kubeconfig that embedded the old certificate', async () => {
    const dir = copyOfBase();
    fs.rmSync(pki(dir, 'admin.pem'));
    fs.rmSync(pki(dir, 'admin-key.pem'));
    fs.rmSync(path.join(dir, 'scheduler.kubeconfig'));
    const ca = read(pki(dir, 'ca.pem'));
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS });
    expect(actions.filter((a) => a.action !== 'kept').map((a) => [a.name, a.action])).toEqual([
      ['admin', 'created'],
      ['admin.kubeconfig', 'updated'],
      ['scheduler.kubeconfig', 'created'],
    ]);
    expect(read(pki(dir, 'ca.pem'))).toBe(ca);
    const kc = parse(read(path.join(dir, 'admin.kubeconfig'))) as { users: { user: Record<string, string> }[] };
    expect(Buffer.from(kc.users[0]!.user['client-certificate-data']!, 'base64').toString()).toBe(read(pki(dir, 'admin.pem')));
  });

  it('re-issues apiserver.pem when an apiserver address is added, and nothing else', async () => {
    const dir = copyOfBase();
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS, apiserverAddresses: [...OPTS.apiserverAddresses, '127.0.0.4'] });
    expect(actions.filter((a) => a.action !== 'kept')).toEqual([{ name: 'apiserver', kind: 'cert', file: 'pki/apiserver.pem', action: 'renewed', reason: 'missing SANs 127.0.0.4' }]);
    expect(new crypto.X509Certificate(read(pki(dir, 'apiserver.pem'))).checkIP('127.0.0.4')).toBe('127.0.0.4');
  });

  it('re-issues the leaves of a CA that was replaced, keeping the other CA and its leaf', async () => {
    const dir = copyOfBase();
    fs.rmSync(pki(dir, 'ca.pem'));
    fs.rmSync(pki(dir, 'ca-key.pem'));
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS });
    const changed = actions.filter((a) => a.action !== 'kept');
    expect(changed.find((a) => a.name === 'ca')?.action).toBe('created');
    for (const l of CLUSTER_LEAVES.filter((x) => x.ca === 'ca'))
      expect(changed.find((a) => a.name === l.name), l.name).toMatchObject({ action: 'renewed', reason: 'x509: certificate signed by unknown authority' });
    expect(actions.find((a) => a.name === 'front-proxy-client')?.action).toBe('kept');
    expect(actions.find((a) => a.name === 'sa')?.action).toBe('kept');
  }, 60_000);

  it('refuses a CA file that is not a CA, and keeps a CA without its key while nothing needs signing', async () => {
    const dir = copyOfBase();
    fs.copyFileSync(pki(dir, 'admin.pem'), pki(dir, 'front-proxy-ca.pem'));
    fs.copyFileSync(pki(dir, 'admin-key.pem'), pki(dir, 'front-proxy-ca-key.pem'));
    await expect(ensureClusterPki({ dataDir: dir, ...OPTS })).rejects.toThrow(/front-proxy-ca\.pem is not a CA certificate/);

    const ext = copyOfBase();
    fs.rmSync(pki(ext, 'ca-key.pem'));
    const kept = await ensureClusterPki({ dataDir: ext, ...OPTS });
    expect(kept.filter((a) => a.action !== 'kept')).toEqual([]);
    fs.rmSync(pki(ext, 'scheduler.pem'));
    const err = await ensureClusterPki({ dataDir: ext, ...OPTS }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PkiError);
    expect((err as Error).message).toBe('cannot issue pki/scheduler.pem (scheduler.pem was missing): pki/ca-key.pem is missing');
  });

  it('rewrites sa.pub from sa.key', async () => {
    const dir = copyOfBase();
    const pub = read(pki(dir, 'sa.pub'));
    fs.rmSync(pki(dir, 'sa.pub'));
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS });
    expect(actions.find((a) => a.name === 'sa')).toEqual({ name: 'sa', kind: 'key', file: 'pki/sa.pub', action: 'renewed', reason: 'sa.pub was missing' });
    expect(read(pki(dir, 'sa.pub'))).toBe(pub);
  });

  it('force regenerates everything, the CAs included', async () => {
    const dir = copyOfBase();
    const before = snapshot(dir);
    const actions = await ensureClusterPki({ dataDir: dir, ...OPTS, force: true, server: 'https://127.0.0.1:16443' });
    expect(actions.filter((a) => a.kind !== 'kubeconfig').every((a) => a.action === 'renewed' && a.reason === 'forced')).toBe(true);
    const after = snapshot(dir);
    for (const [f, text] of before) expect(after.get(f), f).not.toBe(text);
    expect(read(path.join(dir, 'admin.kubeconfig'))).toContain('server: https://127.0.0.1:16443');
  }, 60_000);
});
