import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { R, SIGNER_KUBE_APISERVER_CLIENT, formatTime, type CertificateSigningRequest } from '@kemu/api';
import { certificatePem, parseCsr, signRequest, type Signer } from '@kemu/pki';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { CsrCleanerController, cleanupReason } from './cleaner.ts';
import { makeCsr, writeCa } from './testing.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;
let dir: string;
let ca: Signer;
const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-csrcleaner-'));
  ca = (await writeCa(dir, 'ca', T0)).ca;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A request as it stands at `at`, with conditions updated at the times given, and a certificate valid for `certMs`. */
async function csr(name: string, o: { created: number; approvedAt?: number; deniedAt?: number; failedAt?: number; certMs?: number }): Promise<CertificateSigningRequest> {
  const c = await makeCsr({ name, subject: { CN: name }, signerName: SIGNER_KUBE_APISERVER_CLIENT, usages: ['client auth'] });
  c.metadata.creationTimestamp = formatTime(o.created);
  const conditions = [
    ...(o.approvedAt !== undefined ? [{ type: 'Approved', status: 'True' as const, reason: 'AutoApproved', lastUpdateTime: formatTime(o.approvedAt) }] : []),
    ...(o.deniedAt !== undefined ? [{ type: 'Denied', status: 'True' as const, reason: 'AdminDenied', lastUpdateTime: formatTime(o.deniedAt) }] : []),
    ...(o.failedAt !== undefined ? [{ type: 'Failed', status: 'True' as const, reason: 'SignerValidationFailure', lastUpdateTime: formatTime(o.failedAt) }] : []),
  ];
  let certificate: string | undefined;
  if (o.certMs !== undefined) {
    const req = await parseCsr(Buffer.from(c.spec.request, 'base64').toString());
    const cert = await signRequest(ca, req, { ttlMs: o.certMs, usages: ['client auth'], backdateMs: 5 * MIN, shortMs: 8 * HOUR, nowMs: o.approvedAt ?? o.created });
    certificate = Buffer.from(certificatePem(cert)).toString('base64');
  }
  c.status = { conditions, ...(certificate ? { certificate } : {}) };
  return c;
}

describe('csrcleaner', () => {
  it("keeps and drops requests by Kubernetes' rules", async () => {
    const now = T0 + 48 * HOUR;
    const keep = async (c: Promise<CertificateSigningRequest>) => expect(cleanupReason(await c, now)).toBeUndefined();
    const drop = async (c: Promise<CertificateSigningRequest>, why: string) => expect(cleanupReason(await c, now)).toBe(why);

    await drop(csr('issued-2h', { created: now - 2 * HOUR, approvedAt: now - 2 * HOUR, certMs: 8760 * HOUR }), 'Cleaning CSR as it is more than approvedExpiration duration old and approved.');
    await keep(csr('issued-30m', { created: now - 30 * MIN, approvedAt: now - 30 * MIN, certMs: 8760 * HOUR }));
    // Approved an hour and more ago but never issued: kept (the signer may still be waiting for its CA).
    await keep(csr('approved-unsigned', { created: now - 3 * HOUR, approvedAt: now - 3 * HOUR }));
    await drop(csr('denied-2h', { created: now - 2 * HOUR, deniedAt: now - 2 * HOUR }), 'Cleaning CSR as it is more than deniedExpiration duration old and denied.');
    await keep(csr('denied-10m', { created: now - 2 * HOUR, deniedAt: now - 10 * MIN }));
    await drop(csr('failed-2h', { created: now - 2 * HOUR, approvedAt: now - 2 * HOUR, failedAt: now - 2 * HOUR }), 'Cleaning CSR as it is more than deniedExpiration duration old and failed.');
    await drop(csr('pending-25h', { created: now - 25 * HOUR }), 'Cleaning CSR as it is more than pendingExpiration duration old and unhandled.');
    await keep(csr('pending-23h', { created: now - 23 * HOUR }));
    // An approval whose time the apiserver did not record is never "old"; an expired certificate still goes.
    const expired = await csr('expired', { created: now - 50 * MIN, approvedAt: now - 50 * MIN, certMs: 10 * MIN });
    delete expired.status!.conditions![0]!.lastUpdateTime;
    expect(cleanupReason(expired, now)).toBe('Cleaning CSR as the associated certificate is expired.');
  });

  it('deletes what is due at once, then every hour', async () => {
    const env = fakeContext();
    envs.push(env);
    const t = env.clock.now();
    await env.api.create(R.certificatesigningrequests, undefined, await csr('old', { created: t - 2 * HOUR, approvedAt: t - 2 * HOUR, certMs: 8760 * HOUR }));
    await env.api.create(R.certificatesigningrequests, undefined, await csr('fresh', { created: t - MIN, approvedAt: t - MIN, certMs: 8760 * HOUR }));
    const c = new CsrCleanerController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    const names = () => env.api.all<CertificateSigningRequest>(R.certificatesigningrequests).map((x) => x.metadata.name);
    expect(names()).toEqual(['fresh']);
    await env.clock.advance(59 * MIN);
    await settle();
    expect(names()).toEqual(['fresh']);
    await env.clock.advance(MIN);
    await settle();
    expect(names()).toEqual([]);
  });
});
