// RestClient.setClientCertificate (the kubelet's certificate rotation): requests after the switch present the new
// certificate on new connections; a request already in flight on the old certificate finishes; the old
// connections are closed once the grace period is over.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CA_PROFILE, KUBERNETES_PROFILE, certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, templateFromProfile } from '@kemu/pki';
import { RestClient } from './rest.ts';

let srv: https.Server;
let url: string;
let caPem: string;
const creds: Record<string, { cert: string; key: string }> = {};
const closed: string[] = [];
let release: (() => void) | undefined;

beforeAll(async () => {
  const now = Date.now();
  const caKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const ca = { key: caKey, cert: await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'ca' }, publicKey: caKey, isCA: true, nowMs: now }), { selfKey: caKey }) };
  caPem = certificatePem(ca.cert);
  for (const cn of ['old', 'new', 'localhost']) {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: cn }, publicKey: key, hosts: cn === 'localhost' ? ['127.0.0.1'] : [], nowMs: now }), ca);
    creds[cn] = { cert: certificatePem(cert), key: privateKeyPem(key) };
  }
  srv = https.createServer({ ...creds.localhost!, ca: caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '';
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', metadata: {}, message: cn }));
    };
    if (req.url === '/slow') release = answer;
    else answer();
  });
  srv.on('secureConnection', (s: TLSSocket) => {
    const cn = String(s.getPeerCertificate()?.subject?.CN ?? '');
    s.on('close', () => closed.push(cn));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(srv.address() as AddressInfo).port}`;
});
afterAll(async () => {
  srv.closeAllConnections();
  await new Promise((r) => srv.close(r));
});

describe('RestClient.setClientCertificate', () => {
  it('new requests present the new certificate; one in flight finishes; then the old connections are closed', async () => {
    const client = new RestClient(
      { server: url, caData: Buffer.from(caPem), certData: Buffer.from(creds.old!.cert), keyData: Buffer.from(creds.old!.key) },
      { rotationGraceMs: 300 },
    );
    try {
      expect(JSON.parse((await client.raw('GET', '/who')).body).message).toBe('old');
      const slow = client.raw('GET', '/slow');
      while (!release) await new Promise((r) => setTimeout(r, 10));
      client.setClientCertificate(creds.new!.cert, creds.new!.key);
      expect(JSON.parse((await client.raw('GET', '/who')).body).message).toBe('new');
      release();
      expect(JSON.parse((await slow).body).message).toBe('old');
      const deadline = Date.now() + 5000;
      while (!closed.includes('old') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(closed).toContain('old');
      expect(closed).not.toContain('new');
    } finally {
      await client.close();
    }
  });
});
