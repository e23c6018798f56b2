// CertificateSigningRequests through the REST API (fastify.inject): the requester recorded in spec, status
// emptied on create, spec and status kept on update, /approval changing only conditions (with server-set
// timestamps), /status only the certificate, and Kubernetes' validation messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { certificatePem, createCsr, generatePrivateKey, issueCertificate, KUBERNETES_PROFILE, templateFromProfile, CA_PROFILE } from '@kemu/pki';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

const BASE = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let srv: ApiServer;
let request: string;
let certificate: string;

beforeAll(async () => {
  srv = await startMemoryApiServer();
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  request = Buffer.from((await createCsr({ CN: 'jane', O: ['devs'] }, key)).toString('pem')).toString('base64');
  const caKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const ca = await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'ca' }, publicKey: caKey, isCA: true, nowMs: Date.now() }), { selfKey: caKey });
  const leaf = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'jane' }, publicKey: key, nowMs: Date.now() }), { key: caKey, cert: ca });
  certificate = Buffer.from(certificatePem(leaf)).toString('base64');
});
afterAll(async () => srv?.close());

async function call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await srv.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(body ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as KubeObject & { message?: string } };
}

const csr = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 86400, usages: ['client auth'], ...spec },
});

describe('CertificateSigningRequest strategy', () => {
  it('records the requesting user and starts with an empty status', async () => {
    const body = csr('jane', { username: 'mallory', groups: ['system:masters'] });
    (body as Record<string, unknown>).status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const r = await call('POST', BASE, body, { 'impersonate-user': 'jane', 'impersonate-group': 'devs' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec).toMatchObject({ username: 'jane', groups: ['devs', 'system:authenticated'] });
    expect(r.body.status).toEqual({});
  });

  it('a PUT of the main resource changes only metadata', async () => {
    const cur = (await call('GET', `${BASE}/jane`)).body;
    const next = structuredClone(cur) as KubeObject & { spec: Record<string, unknown> };
    next.metadata.labels = { team: 'a' };
    next.spec.usages = ['server auth'];
    (next as Record<string, unknown>).status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const r = await call('PUT', `${BASE}/jane`, next);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.metadata.labels).toEqual({ team: 'a' });
    expect(r.body.spec).toEqual(cur.spec);
    expect(r.body.status).toEqual({});
  });

  it('/status may not approve nor set a certificate before approval; /approval sets conditions with timestamps', async () => {
    const cur = (await call('GET', `${BASE}/jane`)).body as KubeObject & { status: Record<string, unknown> };
    // /status keeps the stored Approved/Denied conditions: adding one is refused.
    const viaStatus = await call('PUT', `${BASE}/jane/status`, { ...cur, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] } });
    expect(viaStatus.status).toBe(422);
    expect(viaStatus.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "jane" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"');
    const approve = await call('PUT', `${BASE}/jane/approval`, { ...cur, spec: { ...(cur.spec as object), usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] } });
    expect(approve.status, JSON.stringify(approve.body)).toBe(200);
    const cond = (approve.body.status as { conditions: Record<string, string>[] }).conditions[0] ?? {};
    expect(cond).toMatchObject({ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' });
    expect(cond.lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cond.lastTransitionTime).toBe(cond.lastUpdateTime);
    expect((approve.body.spec as { usages: string[] }).usages).toEqual(['client auth']);
    // managedFields: the approval subresource, the conditions keyed by type.
    const entry = (approve.body.metadata.managedFields ?? []).find((m) => m.subresource === 'approval');
    expect(entry?.fieldsV1).toMatchObject({ 'f:status': { 'f:conditions': { 'k:{"type":"Approved"}': { 'f:reason': {} } } } });
  });

  it('/status sets the certificate once, keeping the approval; removing Approved or adding Denied is refused', async () => {
    const cur = (await call('GET', `${BASE}/jane`)).body as KubeObject & { status: { conditions: unknown[] } };
    const signed = await call('PUT', `${BASE}/jane/status`, { ...cur, status: { conditions: [], certificate } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(422);
    expect(signed.body.message).toContain('status.conditions: Forbidden: updates may not remove a condition of type "Approved"');
    const ok = await call('PUT', `${BASE}/jane/status`, { ...cur, status: { ...cur.status, certificate } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((ok.body.status as { certificate: string }).certificate).toBe(certificate);
    const again = await call('PUT', `${BASE}/jane/status`, { ...ok.body, status: { ...(ok.body.status as object), certificate: Buffer.from('junk').toString('base64') } });
    expect(again.body.message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "jane" is invalid: [status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block, status.certificate: Forbidden: updates may not modify existing certificate content]',
    );
    const deny = await call('PUT', `${BASE}/jane/approval`, { ...ok.body, status: { conditions: [...cur.status.conditions, { type: 'Denied', status: 'True' }] } });
    expect(deny.status).toBe(422);
    expect(deny.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "jane" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive');
  });

  it("refuses what v1 validation refuses, with Kubernetes' messages", async () => {
    const legacy = await call('POST', BASE, csr('legacy', { signerName: 'kubernetes.io/legacy-unknown' }));
    expect(legacy.status).toBe(422);
    expect(legacy.body.message).toBe('CertificateSigningRequest.certificates.k8s.io "legacy" is invalid: spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version');
    const bad = await call('POST', BASE, csr('bad', { signerName: 'example', expirationSeconds: 300, usages: ['client auth', 'flying', 'client auth'] }));
    expect(bad.body.message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: [spec.usages[1]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping", spec.usages[2]: Duplicate value: "client auth", spec.signerName: Invalid value: "example": must be a fully qualified domain and path of the form \'example.com/signer-name\', spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds (10 minutes)]',
    );
    const noRequest = await call('POST', BASE, csr('no-request', { request: Buffer.from('hi').toString('base64'), usages: [] }));
    expect(noRequest.body.message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "no-request" is invalid: [spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST, spec.usages: Required value]',
    );
  });

  it("a request pasted as PEM instead of base64 fails to decode, as Go's []byte does", async () => {
    const r = await call('POST', BASE, csr('pasted', { request: '-----BEGIN CERTIFICATE REQUEST-----' }));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte 0');
  });

  it('kubectl get csr columns: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', async () => {
    const r = await srv.app.inject({ method: 'GET', url: BASE, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    const table = r.json() as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(table.rows[0]?.cells.slice(2)).toEqual(['kubernetes.io/kube-apiserver-client', 'jane', '24h', 'Approved,Issued']);
  });

  it('selects on spec.signerName', async () => {
    const hit = await call('GET', `${BASE}?fieldSelector=spec.signerName%3Dkubernetes.io%2Fkube-apiserver-client`);
    expect((hit.body as unknown as { items: unknown[] }).items).toHaveLength(1);
    const miss = await call('GET', `${BASE}?fieldSelector=spec.signerName%3Dexample.com%2Fother`);
    expect((miss.body as unknown as { items: unknown[] }).items).toHaveLength(0);
  });
});
