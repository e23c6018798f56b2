import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureEtcdPki, etcdPkiFiles } from './etcd-pki.ts';
import { readCertAndKey } from './files.ts';
import { subjectAltNames, verifyCertificate } from './verify.ts';

describe('ensureEtcdPki', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-etcd-pki-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("makes seed 003's etcd-ca.pem and etcd.pem: server and client, every member a SAN, then keeps them", async () => {
    const made = await ensureEtcdPki({ dataDir: dir, members: ['127.0.0.40', '127.0.0.41', 'etcd-2'] });
    expect(made.map((a) => [a.name, a.action])).toEqual([['etcd-ca', 'created'], ['etcd', 'created']]);
    const f = etcdPkiFiles(dir);
    expect(['etcd-ca.pem', 'etcd-ca-key.pem', 'etcd.pem', 'etcd-key.pem'].every((n) => fs.existsSync(path.join(dir, 'pki', n)))).toBe(true);
    const ca = readCertAndKey(f.ca, f.caKey).cert;
    const leaf = readCertAndKey(f.cert, f.key).cert;
    expect(leaf.subject).toContain('CN=etcd');
    expect(leaf.subject).toContain('OU=Etcd Security');
    expect(verifyCertificate(leaf, { roots: [ca], usage: 'serverAuth' }).ok).toBe(true);
    expect(verifyCertificate(leaf, { roots: [ca], usage: 'clientAuth' }).ok).toBe(true);
    const sans = subjectAltNames(leaf);
    expect(sans.ipAddresses).toEqual(['127.0.0.1', '127.0.0.40', '127.0.0.41']);
    expect(sans.dnsNames).toEqual(['localhost', 'etcd-2']);
    const again = await ensureEtcdPki({ dataDir: dir, members: ['127.0.0.40', '127.0.0.41', 'etcd-2'] });
    expect(again.map((a) => a.action)).toEqual(['kept', 'kept']);
  });

  it('re-issues etcd.pem on the same CA when a member address is new', async () => {
    const before = fs.readFileSync(etcdPkiFiles(dir).ca, 'utf8');
    const r = await ensureEtcdPki({ dataDir: dir, members: ['127.0.0.40', '127.0.0.42'] });
    expect(r[1]).toMatchObject({ name: 'etcd', action: 'renewed', reason: 'missing SANs 127.0.0.42' });
    expect(fs.readFileSync(etcdPkiFiles(dir).ca, 'utf8')).toBe(before);
  });
});
