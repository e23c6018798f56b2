import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  R,
  SIGNER_KUBE_APISERVER_CLIENT,
  SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
  SIGNER_KUBELET_SERVING,
  type CertificateSigningRequest,
} from '@kemu/api';
import { createLogger } from '@kemu/base';
import { waitFor } from '@kemu/base/testing/processes';
import { certificateUsages, fromName, subjectAltNames, verifyCertificate, type Signer } from '@kemu/pki';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { parseOptions, validateOptions } from '../../options.ts';
import { certificateDurationMs, CsrSigningController } from './signer.ts';
import { approved, issuedCertificate, makeCsr, nodeClientCsr, nodeServingCsr, writeCa, type CsrOptions } from './testing.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const RELOAD_MS = 30_000;
let dir: string;
let ca: { ca: Signer; certFile: string; keyFile: string };
let other: { ca: Signer; certFile: string; keyFile: string };
const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

// FakeClock's start; the CAs are valid from then.
const T0 = 1_700_000_000_000;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-csrsigning-'));
  ca = await writeCa(dir, 'ca', T0);
  other = await writeCa(dir, 'client-ca', T0);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function start(argv: string[], csrs: CertificateSigningRequest[], logLines?: string[]): Promise<{ env: FakeEnv; controller: CsrSigningController }> {
  const env = fakeContext(['--kubeconfig', 'x', ...argv]);
  envs.push(env);
  if (logLines) env.ctx.logger = createLogger('test', 0, {}, { destination: { write: (l: string) => logLines.push(l) } });
  for (const c of csrs) await env.api.create(R.certificatesigningrequests, undefined, c);
  const controller = new CsrSigningController(env.ctx, RELOAD_MS);
  env.informers.start(env.abort.signal);
  void controller.run();
  await settle();
  return { env, controller };
}

const get = (env: FakeEnv, name: string) => env.api.get<CertificateSigningRequest>(R.certificatesigningrequests, undefined, name);
const signed = (env: FakeEnv, name: string) => waitFor(`a certificate for ${name}`, async () => ((await get(env, name)).status?.certificate ? get(env, name) : undefined), 5_000, 5);
const failed = (env: FakeEnv, name: string) =>
  waitFor(`a Failed condition on ${name}`, async () => (await get(env, name)).status?.conditions?.find((c) => c.type === 'Failed'), 5_000, 5);
const single = (o: { certFile: string; keyFile: string }) => ['--cluster-signing-cert-file', o.certFile, '--cluster-signing-key-file', o.keyFile];

const nodeClient = (name: string, o: Partial<CsrOptions> = {}) => nodeClientCsr(name, { conditions: approved(), ...o });

describe('csrsigning', () => {
  it('signs an approved node client request: chains to the CA, subject and usages as asked, a year (--cluster-signing-duration) less the back-date', async () => {
    const { env } = await start(single(ca), [await nodeClient('node-csr-1')]);
    const csr = await signed(env, 'node-csr-1');
    const cert = issuedCertificate(csr);
    const now = env.clock.now();
    expect(verifyCertificate(cert, { roots: [ca.ca.cert], nowMs: now, usage: 'clientAuth' })).toMatchObject({ ok: true });
    expect(fromName(cert.subjectName)).toEqual({ CN: 'system:node:worker-1', O: ['system:nodes'] });
    expect(certificateUsages(cert)).toEqual({ keyUsages: ['digitalSignature', 'keyEncipherment'], extKeyUsages: ['clientAuth'] });
    expect(cert.notBefore.getTime()).toBe(now - 5 * MIN);
    expect(cert.notAfter.getTime()).toBe(now + 8760 * HOUR - 5 * MIN);
    // Written through /status, and the approval kept.
    expect(env.api.calls.filter((c) => c.resource === 'certificatesigningrequests' && c.verb.startsWith('update')).map((c) => c.verb)).toEqual(['update/status']);
    expect(csr.status?.conditions).toEqual(approved());
  });

  it('honours spec.expirationSeconds: at least 10 minutes, at most --cluster-signing-duration; a short certificate keeps its full length', async () => {
    const { env } = await start(
      [...single(ca), '--cluster-signing-duration', '2h'],
      [await nodeClient('fifteen-min', { expirationSeconds: 900 }), await nodeClient('one-min', { expirationSeconds: 60 }), await nodeClient('a-day', { expirationSeconds: 86_400 })],
    );
    const now = env.clock.now();
    const lifetime = async (name: string) => issuedCertificate(await signed(env, name)).notAfter.getTime() - now;
    expect(await lifetime('fifteen-min')).toBe(15 * MIN);
    expect(await lifetime('one-min')).toBe(10 * MIN);
    expect(await lifetime('a-day')).toBe(2 * HOUR);
    expect(certificateDurationMs(undefined, 8760 * HOUR)).toBe(8760 * HOUR);
  });

  it("marks a request that breaks its signer's rules Failed with the signer's reason, and signs nothing", async () => {
    const { env } = await start(single(ca), [
      await nodeClient('not-a-node', { subject: { CN: 'system:node:worker-1', O: ['system:masters'] } }),
      await nodeClient('bad-cn', { subject: { CN: 'worker-1', O: ['system:nodes'] } }),
      await nodeServingCsr('serving-no-san', { hosts: [], conditions: approved() }),
      await makeCsr({ name: 'client-server-usage', subject: { CN: 'jane' }, signerName: SIGNER_KUBE_APISERVER_CLIENT, usages: ['digital signature', 'server auth'], conditions: approved() }),
    ]);
    const expected: Record<string, string> = {
      'not-a-node': 'subject organization is not system:nodes',
      'bad-cn': 'subject common name does not begin with system:node:',
      'serving-no-san': 'DNS or IP subjectAltName is required',
      'client-server-usage': 'invalid usage for client certificate: server auth',
    };
    for (const [name, message] of Object.entries(expected)) {
      expect(await failed(env, name)).toEqual({ type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: '2023-11-14T22:13:20Z' });
      expect((await get(env, name)).status?.certificate).toBeUndefined();
    }
  });

  it("signs a kubelet's serving request with its names and a user's client request (the kubernetes.io task), but not pending or denied ones", async () => {
    const { env } = await start(single(ca), [
      await nodeServingCsr('serving', { conditions: approved() }),
      await makeCsr({ name: 'myuser', subject: { CN: 'myuser', O: ['dev'] }, signerName: SIGNER_KUBE_APISERVER_CLIENT, usages: ['client auth'], expirationSeconds: 86_400, conditions: approved() }),
      await nodeClient('pending', { conditions: [] }),
      await nodeClient('denied', { conditions: [{ type: 'Denied', status: 'True', reason: 'AdminDenied' }] }),
    ]);
    const serving = issuedCertificate(await signed(env, 'serving'));
    expect(subjectAltNames(serving)).toEqual({ dnsNames: ['worker-1'], ipAddresses: ['10.240.0.21'] });
    expect(verifyCertificate(serving, { roots: [ca.ca.cert], nowMs: env.clock.now(), usage: 'serverAuth', host: '10.240.0.21' }).ok).toBe(true);
    const user = issuedCertificate(await signed(env, 'myuser'));
    expect(fromName(user.subjectName)).toEqual({ CN: 'myuser', O: ['dev'] });
    await settle();
    expect((await get(env, 'pending')).status?.certificate).toBeUndefined();
    expect((await get(env, 'denied')).status?.certificate).toBeUndefined();
  });

  it('with per-signer files, signs only for the signers that have them, each with its own CA', async () => {
    const { env, controller } = await start(
      ['--cluster-signing-kube-apiserver-client-cert-file', other.certFile, '--cluster-signing-kube-apiserver-client-key-file', other.keyFile],
      [await nodeClient('node'), await makeCsr({ name: 'user', subject: { CN: 'jane' }, signerName: SIGNER_KUBE_APISERVER_CLIENT, usages: ['client auth'], conditions: approved() })],
    );
    expect(controller.signers.map((s) => s.signerName)).toEqual([SIGNER_KUBE_APISERVER_CLIENT]);
    const user = issuedCertificate(await signed(env, 'user'));
    expect(verifyCertificate(user, { roots: [other.ca.cert], nowMs: env.clock.now() }).ok).toBe(true);
    expect((await get(env, 'node')).status?.certificate).toBeUndefined();
  });

  it('without signing files it does nothing', async () => {
    const { env, controller } = await start([], [await nodeClient('node')]);
    expect(controller.signers).toEqual([]);
    await settle();
    expect((await get(env, 'node')).status).toEqual({ conditions: approved() });
  });

  it('with a missing key file logs the error and leaves approved requests unsigned, then signs once the files can be read', async () => {
    const keyFile = path.join(dir, 'late-key.pem');
    const lines: string[] = [];
    const { env } = await start(['--cluster-signing-cert-file', ca.certFile, '--cluster-signing-key-file', keyFile], [await nodeClient('waiting')], lines);
    await waitFor('a failed signing attempt', () => lines.some((l) => l.includes('error auto signing csr')), 5_000, 5);
    expect(lines.join('')).toContain(`error reading CA cert file \\"${ca.certFile}\\": open ${keyFile}: no such file or directory`);
    expect((await get(env, 'waiting')).status?.certificate).toBeUndefined();
    fs.copyFileSync(ca.keyFile, keyFile);
    await env.clock.advance(RELOAD_MS);
    const cert = issuedCertificate(await signed(env, 'waiting'));
    expect(verifyCertificate(cert, { roots: [ca.ca.cert], nowMs: env.clock.now() }).ok).toBe(true);
  });

  it('takes new CA files in use when they change', async () => {
    const certFile = path.join(dir, 'rotating.pem');
    const keyFile = path.join(dir, 'rotating-key.pem');
    fs.copyFileSync(ca.certFile, certFile);
    fs.copyFileSync(ca.keyFile, keyFile);
    const { env } = await start(['--cluster-signing-cert-file', certFile, '--cluster-signing-key-file', keyFile], [await nodeClient('before')]);
    expect(verifyCertificate(issuedCertificate(await signed(env, 'before')), { roots: [ca.ca.cert], nowMs: env.clock.now() }).ok).toBe(true);
    fs.copyFileSync(other.certFile, certFile);
    fs.copyFileSync(other.keyFile, keyFile);
    await env.api.create(R.certificatesigningrequests, undefined, await nodeClient('after'));
    expect(verifyCertificate(issuedCertificate(await signed(env, 'after')), { roots: [other.ca.cert], nowMs: env.clock.now() }).ok).toBe(true);
  });
});

describe('--cluster-signing-* flags', () => {
  const errors = (...argv: string[]) => validateOptions(parseOptions(['--kubeconfig', 'k', ...argv]));
  it('defaults: no files, a year', () => {
    const o = parseOptions([]);
    expect([o['cluster-signing-cert-file'], o['cluster-signing-key-file'], o['cluster-signing-duration']]).toEqual(['', '', 8760 * HOUR]);
  });
  it("refuses half a pair and mixing the single pair with per-signer files, with Kubernetes' messages", () => {
    expect(errors('--cluster-signing-kubelet-client-cert-file', 'a')).toEqual(['"cluster-signing-kube-apiserver-client": cannot specify cert without key']);
    expect(errors('--cluster-signing-kubelet-serving-key-file', 'a')).toEqual(['"cluster-signing-kubelet-serving": cannot specify key without cert']);
    expect(errors('--cluster-signing-cert-file', 'c', '--cluster-signing-key-file', 'k', '--cluster-signing-legacy-unknown-cert-file', 'c', '--cluster-signing-legacy-unknown-key-file', 'k')).toEqual([
      'cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time',
    ]);
    expect(errors('--cluster-signing-cert-file', 'c', '--cluster-signing-key-file', 'k')).toEqual([]);
  });
});
