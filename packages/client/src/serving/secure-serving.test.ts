// The secure health/metrics port as a client sees it: HTTPS with a self-signed or given certificate, /healthz for
// anyone, /metrics only for whom the delegated authorizer allows (system:masters at once, others by
// SubjectAccessReview), users from client certificates, front-proxy headers and TokenReview'd bearer tokens, and
// Kubernetes' 401/403/500 answers.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMetricsRegistry, parseFlags, silentLogger, startHealthServer, type HealthServer } from '@kemu/base';
import {
  CA_PROFILE,
  KUBERNETES_PROFILE,
  certificatePem,
  generatePrivateKey,
  issueCertificate,
  privateKeyPem,
  templateFromProfile,
  parseCertificates,
  verifyCertificate,
  subjectAltNames,
  type Signer,
} from '@kemu/pki';
import { freePort } from '@kemu/base/testing/ports';
import { FakeReviewer } from '../testing/fake-reviewer.ts';
import { httpsGet, type HttpsGetOptions, type HttpsReply } from '../testing/https-get.ts';
import { servingFlags } from './flags.ts';
import { secureServing } from './secure-serving.ts';

const NOW = Date.now();
let dir: string;
let reviewer: FakeReviewer;
let ca: Signer;
let frontProxyCA: Signer;
let otherCA: Signer;
const creds: Record<string, { cert: string; key: string }> = {};

async function makeCA(cn: string): Promise<Signer> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  return { key, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: cn }, publicKey: key, isCA: true, nowMs: NOW }), { selfKey: key }) };
}
async function client(signer: Signer, cn: string, orgs: string[] = []): Promise<{ cert: string; key: string }> {
  const key: KeyObject = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: cn, O: orgs }, publicKey: key, nowMs: NOW }), signer);
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}
function save(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

function get(port: number, p: string, o: HttpsGetOptions = {}): Promise<HttpsReply> {
  return httpsGet(`https://127.0.0.1:${port}${p}`, o);
}

const servers: HealthServer[] = [];
async function serve(argv: string[], logs: string[] = []): Promise<number> {
  const flags = parseFlags(servingFlags({ port: 10257, tolerateLookupFailure: false }), ['--bind-address=127.0.0.1', '--secure-port=1', ...argv]);
  const logger = silentLogger();
  logger.warn = ((msg: string) => logs.push(msg)) as typeof logger.warn;
  logger.info = ((msg: string) => logs.push(msg)) as typeof logger.info;
  const serving = await secureServing(flags, { pairName: 'kube-controller-manager', logger, userAgent: 'test' });
  const registry = newMetricsRegistry();
  const h = await startHealthServer({ bindAddress: '127.0.0.1', port: await freePort(), checks: { leaderElection: () => true }, registry, ...serving });
  servers.push(h!);
  return h!.port;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-serving-'));
  reviewer = await new FakeReviewer().start();
  [ca, frontProxyCA, otherCA] = await Promise.all([makeCA('kubernetes'), makeCA('front-proxy-ca'), makeCA('someone-else')]);
  creds.admin = await client(ca, 'kubernetes-admin', ['system:masters']);
  creds.jane = await client(ca, 'jane', ['devs']);
  creds.stranger = await client(otherCA, 'kubernetes-admin', ['system:masters']);
  creds.proxy = await client(frontProxyCA, 'front-proxy-client');
  creds.notAllowedProxy = await client(frontProxyCA, 'mallory');
  save('ca.pem', certificatePem(ca.cert));
  save('front-proxy-ca.pem', certificatePem(frontProxyCA.cert));
  reviewer.writeKubeconfig(dir);
  reviewer.tokens.set('good-token', { username: 'alice', uid: 'a-1', groups: ['readers'] });
  reviewer.sar = (spec) =>
    spec.user === 'alice' || spec.user === 'bob'
      ? { allowed: true }
      : spec.user === 'broken'
        ? 'error'
        : { allowed: false, reason: spec.user === 'jane' ? 'no RBAC policy matched' : '' };
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await reviewer.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a secure port with both kubeconfigs and a client CA', () => {
  let port: number;
  const kubeconfig = () => path.join(dir, 'reviewer.kubeconfig');
  beforeAll(async () => {
    port = await serve([
      `--authentication-kubeconfig=${kubeconfig()}`,
      `--authorization-kubeconfig=${kubeconfig()}`,
      `--client-ca-file=${path.join(dir, 'ca.pem')}`,
      `--requestheader-client-ca-file=${path.join(dir, 'front-proxy-ca.pem')}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--authentication-token-webhook-cache-ttl=1h',
    ]);
  });

  it('serves /healthz, /readyz and /livez to anyone', async () => {
    for (const p of ['/healthz', '/readyz', '/livez']) {
      const r = await get(port, p);
      expect(r.status).toBe(200);
      expect(r.body).toBe('ok');
    }
    const v = await get(port, '/healthz?verbose');
    expect(v.body).toContain('[+]leaderElection ok');
  });

  it('refuses /metrics to an anonymous caller with Kubernetes\' Forbidden Status', async () => {
    const r = await get(port, '/metrics');
    expect(r.status).toBe(403);
    expect(r.type).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'forbidden: User "system:anonymous" cannot get path "/metrics"',
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'system:anonymous', groups: ['system:unauthenticated'], nonResourceAttributes: { path: '/metrics', verb: 'get' } });
  });

  it('serves /metrics to a system:masters certificate without asking the apiserver', async () => {
    const before = reviewer.accessReviews.length;
    const r = await get(port, '/metrics', { cred: creds.admin });
    expect(r.status).toBe(200);
    expect(r.body).toContain('process_cpu_user_seconds_total');
    expect(reviewer.accessReviews.length).toBe(before);
  });

  it('asks a SubjectAccessReview for other certificate users and passes its reason on', async () => {
    const r = await get(port, '/metrics', { cred: creds.jane });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe('forbidden: User "jane" cannot get path "/metrics": no RBAC policy matched');
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'jane', groups: ['devs', 'system:authenticated'] });
  });

  it('answers 401 Unauthorized to a certificate from another CA', async () => {
    const r = await get(port, '/metrics', { cred: creds.stranger });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    // Even /healthz: authentication comes before the always-allowed paths.
    expect((await get(port, '/healthz', { cred: creds.stranger })).status).toBe(401);
  });

  it('reviews a bearer token once, caching the answer', async () => {
    const before = reviewer.tokenReviews.length;
    for (let i = 0; i < 3; i++) expect((await get(port, '/metrics', { token: 'good-token' })).status).toBe(200);
    expect(reviewer.tokenReviews.length - before).toBe(1);
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'alice', uid: 'a-1', groups: ['readers', 'system:authenticated'] });
  });

  it('answers 401 to a token the apiserver does not know', async () => {
    const r = await get(port, '/healthz', { token: 'bad-token' });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).message).toBe('Unauthorized');
  });

  it('trusts X-Remote-* headers only from an allowed front-proxy certificate', async () => {
    const headers = { 'x-remote-user': 'bob', 'x-remote-group': 'g1', 'x-remote-extra-scopes': 'a' };
    const r = await get(port, '/metrics', { cred: creds.proxy, headers });
    expect(r.status).toBe(200);
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'bob', groups: ['g1', 'system:authenticated'], extra: { scopes: ['a'] } });
    expect((await get(port, '/metrics', { cred: creds.notAllowedProxy, headers })).status).toBe(401);
    // Headers without a front-proxy certificate are not an identity.
    const plain = await get(port, '/metrics', { headers });
    expect(JSON.parse(plain.body).message).toContain('User "system:anonymous"');
  });

  it('answers 500 with the error when the SubjectAccessReview fails', async () => {
    reviewer.tokens.set('broken-token', { username: 'broken' });
    const r = await get(port, '/metrics', { token: 'broken-token' });
    expect(r.status).toBe(500);
    expect(r.body).toMatch(/^Internal Server Error: "\/metrics": /);
  });
});

describe('a secure port without kubeconfigs (kube-controller-manager as seed 003 starts it)', () => {
  it('treats tokens as anonymous, allows only the always-allowed paths and system:masters, and says why', async () => {
    const logs: string[] = [];
    const port = await serve([`--client-ca-file=${path.join(dir, 'ca.pem')}`], logs);
    expect((await get(port, '/healthz', { token: 'good-token' })).status).toBe(200);
    const r = await get(port, '/metrics', { token: 'good-token' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics"');
    expect((await get(port, '/metrics', { cred: creds.jane })).status).toBe(403);
    expect((await get(port, '/metrics', { cred: creds.admin })).status).toBe(200);
    expect(logs).toContain(
      "No authentication-kubeconfig provided in order to lookup requestheader-client-ca-file in configmap/extension-apiserver-authentication in kube-system, so request-header client certificate authentication won't work.",
    );
    expect(logs).toContain("No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work.");
  });
});

describe('the extension-apiserver-authentication lookup', () => {
  it('takes the client CA and request-header settings from the ConfigMap', async () => {
    reviewer.setConfigMap('kube-system', 'extension-apiserver-authentication', {
      'client-ca-file': certificatePem(ca.cert),
      'requestheader-client-ca-file': certificatePem(frontProxyCA.cert),
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
    const port = await serve([`--authentication-kubeconfig=${path.join(dir, 'reviewer.kubeconfig')}`]);
    expect((await get(port, '/metrics', { cred: creds.admin })).status).toBe(200);
    const r = await get(port, '/metrics', { cred: creds.proxy, headers: { 'x-remote-user': 'carol' } });
    expect(JSON.parse(r.body).message).toBe('forbidden: User "carol" cannot get path "/metrics"');
    reviewer.setConfigMap('kube-system', 'extension-apiserver-authentication', undefined);
  });

  it('picks up a ConfigMap written after start-up (the apiserver came up later), for new connections', async () => {
    const flags = parseFlags(servingFlags({ port: 10257, tolerateLookupFailure: false }), [`--authentication-kubeconfig=${path.join(dir, 'reviewer.kubeconfig')}`]);
    const serving = await secureServing(flags, { pairName: 'kube-controller-manager', logger: silentLogger(), userAgent: 'test' });
    const h = (await startHealthServer({ bindAddress: '127.0.0.1', port: await freePort(), checks: {}, registry: newMetricsRegistry(), ...serving }))!;
    servers.push(h);
    const unfollow = serving!.follow!(h, 50);
    try {
      expect((await get(h.port, '/metrics', { cred: creds.admin })).status).toBe(403);
      reviewer.setConfigMap('kube-system', 'extension-apiserver-authentication', { 'client-ca-file': certificatePem(ca.cert) });
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (Date.now() < deadline && (status = (await get(h.port, '/metrics', { cred: creds.admin })).status) !== 200) await new Promise((r) => setTimeout(r, 50));
      expect(status).toBe(200);
    } finally {
      unfollow();
      reviewer.setConfigMap('kube-system', 'extension-apiserver-authentication', undefined);
    }
  });

  it('fails start-up when the lookup is refused, unless told to tolerate it', async () => {
    reviewer.forbidConfigMaps = true;
    try {
      await expect(serve([`--authentication-kubeconfig=${path.join(dir, 'reviewer.kubeconfig')}`])).rejects.toThrow(
        /^unable to load configmap based request-header-client-ca-file: configmaps "extension-apiserver-authentication" is forbidden/,
      );
      const logs: string[] = [];
      await serve([`--authentication-kubeconfig=${path.join(dir, 'reviewer.kubeconfig')}`, '--authentication-tolerate-lookup-failure'], logs);
      expect(logs).toContain('Continuing without authentication configuration. This may treat all requests as anonymous.');
    } finally {
      reviewer.forbidConfigMaps = false;
    }
  });
});

describe('the serving certificate', () => {
  it('is generated in memory for localhost and 127.0.0.1 without --cert-dir', async () => {
    const logs: string[] = [];
    const port = await serve([], logs);
    expect(logs).toContain('Generated self-signed cert in-memory');
    const socketCert = await new Promise<string>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, agent: false }, (res) => {
        const raw = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().raw;
        res.resume();
        resolve(`-----BEGIN CERTIFICATE-----\n${raw.toString('base64')}\n-----END CERTIFICATE-----\n`);
      });
      req.on('error', reject);
      req.end();
    });
    const [leaf] = parseCertificates(socketCert);
    expect(leaf!.subjectName.getField('CN')[0]).toMatch(/^localhost@\d+$/);
    expect(subjectAltNames(leaf!)).toEqual({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '127.0.0.1'] });
  });

  it('is written to --cert-dir as <pair>.crt/.key, chains to its own CA, and is reused on the next start', async () => {
    const certDir = path.join(dir, 'certs');
    const logs: string[] = [];
    const port = await serve([`--cert-dir=${certDir}`], logs);
    const crt = path.join(certDir, 'kube-controller-manager.crt');
    expect(logs).toContain(`Generated self-signed cert (${crt}, ${path.join(certDir, 'kube-controller-manager.key')})`);
    expect((fs.statSync(path.join(certDir, 'kube-controller-manager.key')).mode & 0o777).toString(8)).toBe('600');
    const chain = parseCertificates(fs.readFileSync(crt, 'utf8'));
    expect(verifyCertificate(chain[0]!, { roots: [chain[1]!], host: '127.0.0.1', usage: 'serverAuth' }).ok).toBe(true);
    // A client that trusts the generated CA verifies the server by name.
    expect((await get(port, '/healthz', { ca: certificatePem(chain[1]!) })).status).toBe(200);
    const again: string[] = [];
    await serve([`--cert-dir=${certDir}`], again);
    expect(again.filter((l) => l.startsWith('Generated'))).toEqual([]);
  });

  it('comes from --tls-cert-file/--tls-private-key-file when given', async () => {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'kcm' }, publicKey: key, hosts: ['localhost', '127.0.0.1'], nowMs: NOW }), ca);
    const port = await serve([`--tls-cert-file=${save('kcm.pem', certificatePem(cert))}`, `--tls-private-key-file=${save('kcm-key.pem', privateKeyPem(key))}`]);
    expect((await get(port, '/healthz', { ca: certificatePem(ca.cert) })).status).toBe(200);
    await expect(serve([`--tls-cert-file=${path.join(dir, 'nope.pem')}`, `--tls-private-key-file=${path.join(dir, 'kcm-key.pem')}`])).rejects.toThrow(/nope\.pem/);
  });

  it('refuses an unreadable or malformed client CA bundle at start-up', async () => {
    await expect(serve([`--client-ca-file=${path.join(dir, 'missing-ca.pem')}`])).rejects.toThrow(/^unable to load client CA provider: .*missing-ca\.pem: no such file or directory/);
    await expect(serve([`--requestheader-client-ca-file=${save('garbage.pem', 'not a certificate\n')}`])).rejects.toThrow(/^unable to load client CA provider: .*garbage\.pem: no CERTIFICATE block found/);
  });
});
