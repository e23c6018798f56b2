// The reverse direction: a PKI made with cfssl and openssl exactly as seed 003 makes it (its CSR JSON files,
// ca-config.json's "kubernetes" profile, cfssljson -bare, openssl genrsa) is read by this library and kept by
// `kemu pki`, which adds only what the seed does not make.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureClusterPki } from './cluster-pki.ts';
import { readCertAndKey, readSigner } from './files.ts';
import { verifyCertificate, subjectAltNames } from './verify.ts';
import { parsePrivateKeyPem, parsePublicKeyPem, sameKey } from './keys.ts';
import { parseCsr } from './csr.ts';
import { fromName } from './name.ts';
import { noCfssl, noOpenssl, opensslVerify } from './testing/openssl.ts';

const skip = noCfssl ?? noOpenssl;
if (skip) console.warn(`packages/pki/src/cfssl.test.ts: ${skip}`);

// The seed's files, as the guide it follows writes them.
const names = (o: string) => [{ C: 'CN', ST: 'Beijing', L: 'Beijing', O: o, OU: 'Kubernetes-manual' }];
const rsa = { algo: 'rsa', size: 2048 };
const CSR_JSON: Record<string, unknown> = {
  'ca-config.json': {
    signing: {
      default: { expiry: '876000h' },
      profiles: { kubernetes: { usages: ['signing', 'key encipherment', 'server auth', 'client auth'], expiry: '876000h' } },
    },
  },
  'ca-csr.json': { CN: 'kubernetes', key: rsa, names: names('Kubernetes'), ca: { expiry: '876000h' } },
  'apiserver-csr.json': { CN: 'kube-apiserver', key: rsa, names: names('Kubernetes') },
  'front-proxy-ca-csr.json': { CN: 'kubernetes', key: rsa },
  'front-proxy-client-csr.json': { CN: 'front-proxy-client', key: rsa },
  'manager-csr.json': { CN: 'system:kube-controller-manager', key: rsa, names: names('system:kube-controller-manager') },
  'scheduler-csr.json': { CN: 'system:kube-scheduler', key: rsa, names: names('system:kube-scheduler') },
  'kube-proxy-csr.json': { CN: 'system:kube-proxy', key: rsa, names: names('system:kube-proxy') },
  'admin-csr.json': { CN: 'admin', key: rsa, names: names('system:masters') },
};
const HOSTNAME = '10.96.0.1,127.0.0.1,127.0.0.1,kubernetes,kubernetes.default,kubernetes.default.svc,kubernetes.default.svc.cluster,kubernetes.default.svc.cluster.local,127.0.0.2,127.0.0.3';
const LEAVES: [file: string, ca: string, csr: string, hostname?: string][] = [
  ['apiserver', 'ca', 'apiserver-csr.json', HOSTNAME],
  ['front-proxy-client', 'front-proxy-ca', 'front-proxy-client-csr.json'],
  ['controller-manager', 'ca', 'manager-csr.json'],
  ['scheduler', 'ca', 'scheduler-csr.json'],
  ['kube-proxy', 'ca', 'kube-proxy-csr.json'],
  ['admin', 'ca', 'admin-csr.json'],
];

let dir: string;
let pkiDir: string;
const read = (f: string) => fs.readFileSync(path.join(pkiDir, f), 'utf8');
const sh = (cmd: string, cwd: string) => execFileSync('sh', ['-c', cmd], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

describe.skipIf(skip)('a PKI made by cfssl and openssl as seed 003 makes it', () => {
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-cfssl-'));
    pkiDir = path.join(dir, 'pki');
    const work = path.join(dir, 'csr');
    fs.mkdirSync(work);
    fs.mkdirSync(pkiDir);
    for (const [f, body] of Object.entries(CSR_JSON)) fs.writeFileSync(path.join(work, f), JSON.stringify(body));
    sh(`cfssl gencert -initca ca-csr.json | cfssljson -bare ${pkiDir}/ca`, work);
    sh(`cfssl gencert -initca front-proxy-ca-csr.json | cfssljson -bare ${pkiDir}/front-proxy-ca`, work);
    for (const [file, ca, csr, hostname] of LEAVES)
      sh(
        `cfssl gencert -ca=${pkiDir}/${ca}.pem -ca-key=${pkiDir}/${ca}-key.pem -config=ca-config.json ${hostname ? `-hostname=${hostname} ` : ''}-profile=kubernetes ${csr} | cfssljson -bare ${pkiDir}/${file}`,
        work,
      );
    sh(`openssl genrsa -out ${pkiDir}/sa.key 2048 && openssl rsa -in ${pkiDir}/sa.key -pubout -out ${pkiDir}/sa.pub`, work);
  }, 60_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the library reads every certificate and key, and each chain verifies', async () => {
    const ca = readSigner(path.join(pkiDir, 'ca.pem'), path.join(pkiDir, 'ca-key.pem'));
    const fpca = readSigner(path.join(pkiDir, 'front-proxy-ca.pem'), path.join(pkiDir, 'front-proxy-ca-key.pem'));
    expect(read('ca-key.pem')).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/); // PKCS#1
    expect(fromName(ca.cert.subjectName)).toEqual({ C: ['CN'], ST: ['Beijing'], L: ['Beijing'], O: ['Kubernetes'], OU: ['Kubernetes-manual'], CN: 'kubernetes' });
    for (const [file, caName] of LEAVES) {
      const leaf = readCertAndKey(path.join(pkiDir, `${file}.pem`), path.join(pkiDir, `${file}-key.pem`));
      const roots = [caName === 'ca' ? ca.cert : fpca.cert];
      expect(verifyCertificate(leaf.cert, { roots, usage: 'clientAuth' }), file).toMatchObject({ ok: true });
      expect(verifyCertificate(leaf.cert, { roots: [caName === 'ca' ? fpca.cert : ca.cert] }), file).toEqual({ ok: false, reason: 'x509: certificate signed by unknown authority' });
    }
    const apiserver = readCertAndKey(path.join(pkiDir, 'apiserver.pem'), path.join(pkiDir, 'apiserver-key.pem')).cert;
    expect(verifyCertificate(apiserver, { roots: [ca.cert], usage: 'serverAuth', host: 'kubernetes.default.svc' })).toMatchObject({ ok: true });
    expect(verifyCertificate(apiserver, { roots: [ca.cert], host: '10.96.0.1' })).toMatchObject({ ok: true });
    expect(verifyCertificate(apiserver, { roots: [ca.cert], host: '127.0.0.9' })).toEqual({
      ok: false,
      reason: 'x509: certificate is valid for 10.96.0.1, 127.0.0.1, 127.0.0.1, 127.0.0.2, 127.0.0.3, not 127.0.0.9', // cfssl keeps the balancer's duplicate
    });
    expect(subjectAltNames(apiserver).dnsNames).toContain('kubernetes.default.svc.cluster.local');
    // openssl genrsa (3.x) writes PKCS#8; openssl rsa -pubout SPKI
    expect(read('sa.key')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(sameKey(parsePrivateKeyPem(read('sa.key')), parsePublicKeyPem(read('sa.pub')))).toBe(true);
    // cfssljson's .csr files
    const csr = await parseCsr(read('apiserver.csr'));
    expect(csr.subject.CN).toBe('kube-apiserver');
    expect(csr.ipAddresses).toEqual(['10.96.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.3']);
  });

  it('kemu pki keeps every file cfssl and openssl made, adds what the seed lacks, signed by the cfssl CA', async () => {
    const before = new Map(fs.readdirSync(pkiDir).map((f) => [f, read(f)]));
    const actions = await ensureClusterPki({ dataDir: dir, apiserverAddresses: ['127.0.0.2', '127.0.0.3'] });
    expect(actions.filter((a) => a.action !== 'kept').map((a) => `${a.name} ${a.action}`)).toEqual([
      'apiserver-kubelet-client created',
      'admin.kubeconfig created',
      'kube-proxy.kubeconfig created',
      'controller-manager.kubeconfig created',
      'scheduler.kubeconfig created',
    ]);
    for (const [f, text] of before) expect(read(f), f).toBe(text);
    expect(opensslVerify(path.join(pkiDir, 'ca.pem'), path.join(pkiDir, 'apiserver-kubelet-client.pem'))).toMatch(/: OK$/);
    // the issuer is the cfssl CA's subject byte for byte, which Go's chain building needs
    const ours = new crypto.X509Certificate(read('apiserver-kubelet-client.pem'));
    expect(ours.checkIssued(new crypto.X509Certificate(read('ca.pem')))).toBe(true);
    expect(ours.issuer).toBe(new crypto.X509Certificate(read('ca.pem')).subject);
  });

  it("cfssl's apiserver.pem serves, and admin.kubeconfig's embedded cfssl admin.pem authenticates, over mutual TLS", async () => {
    const kc = parse(fs.readFileSync(path.join(dir, 'admin.kubeconfig'), 'utf8')) as {
      clusters: { cluster: Record<string, string> }[];
      users: { user: Record<string, string> }[];
    };
    const dec = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString();
    const ca = dec(kc.clusters[0]?.cluster['certificate-authority-data']);
    const server = tls.createServer({ cert: read('apiserver.pem'), key: read('apiserver-key.pem'), ca: read('ca.pem'), requestCert: true, rejectUnauthorized: true });
    let peerCN = '';
    server.on('secureConnection', (s) => {
      peerCN = String(s.getPeerCertificate().subject.CN);
      s.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const got = await new Promise<string>((resolve, reject) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca, cert: dec(kc.users[0]?.user['client-certificate-data']), key: dec(kc.users[0]?.user['client-key-data']) });
        let data = '';
        s.on('data', (d: Buffer) => (data += d.toString()));
        s.on('error', reject);
        s.on('close', () => resolve(data));
      });
      expect(got).toBe('ok');
      expect(peerCN).toBe('admin'); // the guide's admin-csr.json, kept as it was
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
