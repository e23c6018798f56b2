// authnRequestOf over a real TLS socket that asks for a client certificate without enforcing it (as
// kube-apiserver's listener does): the x509 authenticator then verifies what was presented.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, type Signer } from '@kemu/pki';
import { authenticateIncoming } from './authenticate.ts';
import { makeCa } from './testing/certs.ts';
import { unionAuthenticator } from './union.ts';
import { x509Authenticator } from './x509.ts';

const DAY = 86_400_000;
let server: https.Server;
let port: number;
let ca: Signer;
let other: Signer;
let serverCa: Signer;

async function client(signer: Signer, cn: string, o: string[]): Promise<{ cert: string; key: string }> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  const cert = await issueCertificate({ subject: { CN: cn, O: o }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) }, signer);
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

beforeAll(async () => {
  ca = await makeCa('kubernetes');
  other = await makeCa('other');
  serverCa = await makeCa('serving');
  const skey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  const scert = await issueCertificate(
    { subject: { CN: 'localhost' }, publicKey: skey, keyUsages: ['digitalSignature'], extKeyUsages: ['serverAuth'], ipAddresses: ['127.0.0.1'], notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) },
    serverCa,
  );
  const auth = unionAuthenticator([x509Authenticator([ca.cert])], { anonymous: true });
  server = https.createServer({ cert: certificatePem(scert), key: privateKeyPem(skey), requestCert: true, rejectUnauthorized: false, ca: certificatePem(ca.cert) }, (req, res) => {
    void authenticateIncoming(auth, req).then((out) => {
      res.writeHead(out.ok ? 200 : out.error.code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.ok ? out.response.user : { reason: out.reason }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function get(creds?: { cert: string; key: string }): Promise<{ code: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/', ca: certificatePem(serverCa.cert), ...(creds ?? {}) }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('client certificates over TLS', () => {
  it('authenticates a certificate of the client CA', async () => {
    const res = await get(await client(ca, 'jane', ['dev']));
    expect(res.code).toBe(200);
    expect(res.body).toMatchObject({ username: 'jane', groups: ['dev', 'system:authenticated'] });
  });

  it('refuses one from another CA with 401, even though anonymous is on', async () => {
    const res = await get(await client(other, 'admin', ['system:masters']));
    expect(res.code).toBe(401);
    expect(res.body.reason).toMatch(/^verifying certificate SN=\d+, .* failed: x509: certificate signed by unknown authority$/);
  });

  it('is anonymous without a certificate', async () => {
    const res = await get();
    expect(res.body).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
  });
});
