// The serving module against a real server: what authnRequestOf sees for no client certificate, one from the
// --client-ca-file's CA and one from another CA (none of them breaks the handshake); isInsecureRequest tells the
// --insecure-port from the secure port; and the --cert-dir self-signed pair is written once and then reused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { Agent, request } from 'undici';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, type Signer, type X509Certificate } from '@kemu/pki';
import { DEFAULT_CONNECTION_LIMITS } from './connection-limits.ts';
import type { ApiServer } from './server.ts';
import { authnRequestOf } from './authn/request.ts';
import { isInsecureRequest, loadServingTls, serveInsecure, validateServingFlags, type InsecureServer, type ServingFlagValues } from './serving.ts';
import { startMemoryApiServer } from './testing/memory-server.ts';

const HOUR = 3_600_000;
async function ca(cn: string): Promise<Signer> {
  const key = await generatePrivateKey();
  const cert = await issueCertificate(
    { subject: { CN: cn }, publicKey: key, isCA: true, keyUsages: ['keyCertSign', 'digitalSignature'], notBefore: new Date(Date.now() - HOUR), notAfter: new Date(Date.now() + HOUR) },
    { selfKey: key },
  );
  return { cert, key };
}
async function leaf(signer: Signer, cn: string, o: string[], serving = false): Promise<{ cert: X509Certificate; key: KeyObject }> {
  const key = await generatePrivateKey();
  const cert = await issueCertificate(
    {
      subject: { CN: cn, O: o },
      publicKey: key,
      keyUsages: ['digitalSignature', 'keyEncipherment'],
      extKeyUsages: [serving ? 'serverAuth' : 'clientAuth'],
      ...(serving ? { ipAddresses: ['127.0.0.1'] } : {}),
      notBefore: new Date(Date.now() - HOUR),
      notAfter: new Date(Date.now() + HOUR),
    },
    signer,
  );
  return { cert, key };
}

let srv: ApiServer;
let insecure: InsecureServer;
let secureUrl: string;
let clusterCa: Signer;
let other: Signer;
const agents: Agent[] = [];
const seen: Array<{ insecure: boolean; peers: string[]; authorized?: boolean; error?: string; peer?: string }> = [];

beforeAll(async () => {
  [clusterCa, other] = await Promise.all([ca('kubernetes'), ca('someone-else')]);
  const serving = await leaf(clusterCa, 'kube-apiserver', [], true);
  srv = await startMemoryApiServer({
    https: { cert: Buffer.from(certificatePem(serving.cert)), key: Buffer.from(privateKeyPem(serving.key)), ca: Buffer.from(certificatePem(clusterCa.cert)), requestCert: true, rejectUnauthorized: false },
  });
  srv.app.get('/test/whoami', async (req) => {
    const a = authnRequestOf(req.raw);
    seen.push({
      insecure: isInsecureRequest(req.raw),
      peers: a.peerCertificates.map((c) => String(c.subject.CN)),
      ...(a.tls ? { authorized: a.tls.authorized, ...(a.tls.peer ? { peer: String(a.tls.peer.subject.CN) } : {}) } : {}),
      ...(a.tls?.authorizationError ? { error: a.tls.authorizationError } : {}),
    });
    return 'ok';
  });
  const address = await srv.app.listen({ host: '127.0.0.1', port: 0 });
  secureUrl = address;
  insecure = await serveInsecure(srv.app, srv.upgrade, { host: '127.0.0.1', port: 0, limits: DEFAULT_CONNECTION_LIMITS });
});
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await insecure?.close();
  await srv?.close();
});

async function get(url: string, connect: Record<string, unknown> = {}): Promise<number> {
  const agent = new Agent({ connect: { ca: certificatePem(clusterCa.cert), ...connect } });
  agents.push(agent);
  const r = await request(`${url}/test/whoami`, { dispatcher: agent });
  await r.body.text();
  return r.statusCode;
}

describe('authnRequestOf and isInsecureRequest', () => {
  it('a certificate from the client CA: the verified chain, leaf first', async () => {
    const c = await leaf(clusterCa, 'jane', ['dev']);
    expect(await get(secureUrl, { cert: certificatePem(c.cert), key: privateKeyPem(c.key) })).toBe(200);
    expect(seen.at(-1)).toEqual({ insecure: false, peers: ['jane', 'kubernetes'], authorized: true, peer: 'jane' });
  });

  it('a certificate from another CA: the handshake succeeds, no verified chain, the reason kept', async () => {
    const c = await leaf(other, 'mallory', ['system:masters']);
    expect(await get(secureUrl, { cert: certificatePem(c.cert), key: privateKeyPem(c.key) })).toBe(200);
    expect(seen.at(-1)).toMatchObject({ insecure: false, peers: [], authorized: false, peer: 'mallory' });
    expect(seen.at(-1)?.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i);
  });

  it('no certificate: nothing to verify', async () => {
    expect(await get(secureUrl)).toBe(200);
    expect(seen.at(-1)).toMatchObject({ insecure: false, peers: [], authorized: false });
    expect(seen.at(-1)?.peer).toBeUndefined();
  });

  it('the insecure port: plain HTTP to the same app, marked insecure', async () => {
    const r = await request(`http://${insecure.address}/test/whoami`);
    await r.body.text();
    expect(r.statusCode).toBe(200);
    expect(seen.at(-1)).toEqual({ insecure: true, peers: [] });
    const ns = await request(`http://${insecure.address}/api/v1/namespaces/default`);
    expect(ns.statusCode).toBe(200);
    expect(((await ns.body.json()) as { metadata: { name: string } }).metadata.name).toBe('default');
  });

  it('the insecure port: WebSocket watches upgrade there too', async () => {
    const ws = new WebSocket(`ws://${insecure.address}/api/v1/namespaces?watch=true`);
    const first = await new Promise<{ type: string; object: { metadata: { name: string } } }>((resolve, reject) => {
      ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as { type: string; object: { metadata: { name: string } } }));
      ws.once('error', reject);
    });
    ws.close();
    expect(first.type).toBe('ADDED');
    expect(first.object.metadata.name).toBeTruthy();
  });
});

describe('loadServingTls', () => {
  const base: ServingFlagValues = { 'secure-port': 6443, 'bind-address': '0.0.0.0', 'tls-cert-file': '', 'tls-private-key-file': '', 'cert-dir': '', 'client-ca-file': '', 'insecure-port': 0, 'insecure-bind-address': '127.0.0.1' };
  const hosts = { publicAddress: '10.0.0.5', serviceIP: '10.96.0.1' };

  it('writes apiserver.crt/apiserver.key to --cert-dir once, then reuses them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-certdir-'));
    try {
      const first = await loadServingTls({ ...base, 'cert-dir': dir }, hosts);
      expect(first).toMatchObject({ certFile: path.join(dir, 'apiserver.crt'), keyFile: path.join(dir, 'apiserver.key'), generated: true });
      expect(fs.statSync(path.join(dir, 'apiserver.key')).mode & 0o777).toBe(0o600);
      const again = await loadServingTls({ ...base, 'cert-dir': dir }, hosts);
      expect(again?.generated).toBe(false);
      expect(again?.https.cert.equals(first?.https.cert ?? Buffer.alloc(0))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--secure-port=0 serves no HTTPS', async () => {
    expect(await loadServingTls({ ...base, 'secure-port': 0 }, hosts)).toBeUndefined();
  });

  it('refuses flags Kubernetes refuses', () => {
    expect(validateServingFlags({ ...base, 'tls-cert-file': 'a.crt' })).toEqual(['--tls-cert-file and --tls-private-key-file must be given together']);
    expect(validateServingFlags({ ...base, 'insecure-port': 70000 })).toEqual(['--insecure-port 70000 must be between 0 and 65535, inclusive. 0 for turning off insecure (HTTP) port.']);
  });
});
