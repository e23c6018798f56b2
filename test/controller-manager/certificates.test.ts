// The certificate controllers against a real kube-apiserver: a user's request approved with `kubectl
// certificate approve` is issued by the CA named in --cluster-signing-cert-file/-key-file (the kubernetes.io
// "issue a certificate for a user" task); a kubelet's client request is approved by csrapproving (the test's
// apiserver allows every SubjectAccessReview) and issued; a kubelet-serving request waits for an administrator.
// Needs the apiserver's certificates API (spec.username filled from the requester, the /approval subresource).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { R, SIGNER_KUBE_APISERVER_CLIENT, type CertificateSigningRequest } from '@kemu/api';
import { verifyCertificate, fromName } from '@kemu/pki';
import { SHORT_LEASE, startEnv, waitFor, type Env } from './cluster.ts';
import { issuedCertificate, makeCsr, nodeClientCsr, nodeServingCsr, writeCa } from '../../packages/controller-manager/src/controllers/certificates/testing.ts';

let env: Env;
let ca: Awaited<ReturnType<typeof writeCa>>;
beforeAll(async () => {
  env = await startEnv();
  ca = await writeCa(env.dir, 'ca', Date.now());
  await env.startManager('kcm-0', [...SHORT_LEASE, `--cluster-signing-cert-file=${ca.certFile}`, `--cluster-signing-key-file=${ca.keyFile}`]);
}, 60_000);
afterAll(async () => env?.stop());

const get = (name: string) => env.client.get<CertificateSigningRequest>(R.certificatesigningrequests, undefined, name);
const issued = (name: string) => waitFor(`a certificate for ${name}`, async () => ((await get(name)).status?.certificate ? get(name) : undefined), 30_000, 100);

describe('certificate controllers', () => {
  it('issues a user certificate once an administrator approves the request, for the requested duration', async () => {
    const csr = await makeCsr({ name: 'myuser', subject: { CN: 'myuser', O: ['dev'] }, signerName: SIGNER_KUBE_APISERVER_CLIENT, usages: ['client auth'], expirationSeconds: 86_400 });
    const file = path.join(env.dir, 'myuser-csr.json');
    writeFileSync(file, JSON.stringify({ apiVersion: csr.apiVersion, kind: csr.kind, metadata: csr.metadata, spec: { request: csr.spec.request, signerName: csr.spec.signerName, usages: csr.spec.usages, expirationSeconds: 86_400 } }));
    await env.kubectl('create', '-f', file);
    await env.kubectl('certificate', 'approve', 'myuser');
    const cert = issuedCertificate(await issued('myuser'));
    expect(verifyCertificate(cert, { roots: [ca.ca.cert], usage: 'clientAuth' }).ok).toBe(true);
    expect(fromName(cert.subjectName)).toEqual({ CN: 'myuser', O: ['dev'] });
    // 24 h, back-dated 5 minutes at both ends (a long-lived certificate).
    expect(cert.notAfter.getTime() - cert.notBefore.getTime()).toBe(86_400_000);
  });

  it("approves and issues a kubelet's client request, and leaves its serving request pending", async () => {
    const client = await nodeClientCsr('node-csr-worker-1');
    const serving = await nodeServingCsr('serving-worker-1');
    for (const c of [client, serving]) await env.client.create(R.certificatesigningrequests, undefined, { metadata: c.metadata, spec: { request: c.spec.request, signerName: c.spec.signerName, usages: c.spec.usages } } as CertificateSigningRequest);
    const done = await issued('node-csr-worker-1');
    expect(done.status?.conditions?.find((c) => c.type === 'Approved')).toMatchObject({ status: 'True', reason: 'AutoApproved' });
    expect(verifyCertificate(issuedCertificate(done), { roots: [ca.ca.cert], usage: 'clientAuth' }).ok).toBe(true);
    expect((await get('serving-worker-1')).status?.conditions ?? []).toEqual([]);
  });
});
