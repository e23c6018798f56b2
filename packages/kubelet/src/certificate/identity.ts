// What a node's certificates say (pkg/kubelet/certificate): subject O=system:nodes, CN=system:node:<name>; client
// usages digital signature + client auth, serving usages digital signature + server auth (key encipherment too
// for RSA keys); and the bootstrap request's name, node-csr-<digest of key, subject and usages>, so a restarted
// kubelet asking with the same key finds its earlier request.
import crypto, { type KeyObject } from 'node:crypto';
import type { KeyUsage } from '@kemu/api';
import { spkiDer, type DistinguishedName } from '@kemu/pki';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

export function nodeSubject(nodeName: string): DistinguishedName {
  return { CN: `${NODE_USER_PREFIX}${nodeName}`, O: [NODES_GROUP] };
}

export function clientUsages(key: KeyObject): KeyUsage[] {
  return key.asymmetricKeyType === 'rsa' ? ['digital signature', 'key encipherment', 'client auth'] : ['digital signature', 'client auth'];
}

export function servingUsages(key: KeyObject): KeyUsage[] {
  return key.asymmetricKeyType === 'rsa' ? ['digital signature', 'key encipherment', 'server auth'] : ['digital signature', 'server auth'];
}

/** The bootstrap's usages (bootstrap.go requestNodeCertificate asks for key encipherment whatever the key). */
export const BOOTSTRAP_USAGES: KeyUsage[] = ['digital signature', 'key encipherment', 'client auth'];

/** bootstrap.go digestedName: SHA-512/256 over base64url(SPKI)|CN|O…|usages…|, as "node-csr-<base64url>". */
export function bootstrapCsrName(key: KeyObject, subject: DistinguishedName, usages: readonly KeyUsage[]): string {
  const hash = crypto.createHash('sha512-256');
  const write = (data: Buffer) => {
    hash.update(data.toString('base64url'));
    hash.update('|');
  };
  write(spkiDer(key));
  write(Buffer.from(subject.CN ?? ''));
  for (const o of subject.O ?? []) write(Buffer.from(o));
  for (const u of usages) write(Buffer.from(u));
  return `node-csr-${hash.digest().toString('base64url')}`;
}
