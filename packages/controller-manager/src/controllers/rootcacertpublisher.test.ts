import { afterAll, beforeAll, afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { R, type ConfigMap, type Namespace } from '@kemu/api';
import { CA_PROFILE, certificatePem, generatePrivateKey, issueCertificate, templateFromProfile } from '@kemu/pki';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { DESCRIPTION, RootCACertPublisher } from './rootcacertpublisher.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

let dir: string;
let caFile: string;
let caPem: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-rootca-'));
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  caPem = certificatePem(await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'kubernetes' }, publicKey: key, isCA: true, nowMs: Date.now() }), { selfKey: key }));
  caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, caPem);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(...namespaces: string[]): Promise<FakeEnv> {
  const env = fakeContext([`--root-ca-file=${caFile}`]);
  envs.push(env);
  for (const n of namespaces) await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: n } });
  const c = new RootCACertPublisher(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}
const cmIn = (env: FakeEnv, ns: string) => env.api.get<ConfigMap>(R.configmaps, ns, 'kube-root-ca.crt');

describe('root-ca-certificate-publisher-controller', () => {
  it('publishes kube-root-ca.crt with ca.crt and the description in every namespace, new ones too', async () => {
    const env = await start('default', 'kube-system');
    for (const ns of ['default', 'kube-system']) {
      const cm = await cmIn(env, ns);
      expect(cm.data).toEqual({ 'ca.crt': caPem });
      expect(cm.metadata.annotations).toEqual({ 'kubernetes.io/description': DESCRIPTION });
    }
    await env.api.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'team-a' } });
    await settle();
    expect((await cmIn(env, 'team-a')).data?.['ca.crt']).toBe(caPem);
  });

  it('re-creates a deleted one and puts back an edited one, keeping other annotations', async () => {
    const env = await start('team-a');
    await env.api.delete(R.configmaps, 'team-a', 'kube-root-ca.crt');
    await settle();
    expect((await cmIn(env, 'team-a')).data).toEqual({ 'ca.crt': caPem });

    const cm = await cmIn(env, 'team-a');
    await env.api.update(R.configmaps, 'team-a', { ...cm, metadata: { ...cm.metadata, annotations: { mine: 'x' } }, data: { 'ca.crt': 'tampered', extra: 'y' } });
    await settle();
    const fixed = await cmIn(env, 'team-a');
    expect(fixed.data).toEqual({ 'ca.crt': caPem });
    expect(fixed.metadata.annotations).toEqual({ mine: 'x', 'kubernetes.io/description': DESCRIPTION });
  });

  it('writes nothing into a terminating namespace', async () => {
    const env = await start('going');
    await env.api.delete(R.namespaces, undefined, 'going');
    await env.api.delete(R.configmaps, 'going', 'kube-root-ca.crt');
    await settle();
    expect(env.api.all(R.configmaps, 'going')).toEqual([]);
  });

  it('refuses a --root-ca-file that is missing or holds no certificate, as Kubernetes', () => {
    const missing = fakeContext([`--root-ca-file=${dir}/nope.pem`]);
    expect(() => new RootCACertPublisher(missing.ctx)).toThrow(`error parsing root-ca-file at ${dir}/nope.pem: open ${dir}/nope.pem: no such file or directory`);
    const junk = path.join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(() => new RootCACertPublisher(fakeContext([`--root-ca-file=${junk}`]).ctx)).toThrow(
      `error parsing root-ca-file at ${junk}: data does not contain any valid RSA or ECDSA certificates`,
    );
  });
});
