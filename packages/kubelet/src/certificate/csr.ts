// client-go's util/certificate/csr: create a CertificateSigningRequest (by name, reusing a compatible one that
// exists, or by generateName "csr-") and wait on a watch of it until it is issued, denied or failed, with
// client-go's messages.
import { setTimeout as sleep } from 'node:timers/promises';
import { R, StatusError, type CertificateSigningRequest, type KeyUsage } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { RestClient } from '@kemu/client';

export type CsrApi = Pick<RestClient, 'create' | 'get' | 'list' | 'watch'>;

export interface CsrSpec {
  /** A fixed name (the bootstrap's node-csr-<digest>); without it the server names it csr-<random>. */
  name?: string;
  requestPem: string;
  signerName: string;
  usages: KeyUsage[];
}

/** Creates the CSR; returns its name and uid. */
export async function requestCertificate(client: CsrApi, s: CsrSpec): Promise<{ name: string; uid: string }> {
  const csr: CertificateSigningRequest = {
    metadata: s.name ? { name: s.name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(s.requestPem).toString('base64'), signerName: s.signerName, usages: s.usages },
  };
  try {
    const made = await client.create<CertificateSigningRequest>(R.certificatesigningrequests, undefined, csr);
    return { name: made.metadata.name ?? '', uid: made.metadata.uid ?? '' };
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409 && s.name)) throw new Error(`cannot create certificate signing request: ${(e as Error).message}`);
  }
  // The same key asked before (a restart while waiting): wait for that request instead.
  let existing: CertificateSigningRequest;
  try {
    existing = await client.get<CertificateSigningRequest>(R.certificatesigningrequests, undefined, s.name);
  } catch (e) {
    throw new Error(`cannot retrieve certificate signing request: ${(e as Error).message}`);
  }
  if (existing.spec.request !== csr.spec.request || existing.spec.signerName !== s.signerName) {
    throw new Error(`retrieved csr is not compatible: csr ${s.name} was created with a different request`);
  }
  return { name: s.name, uid: existing.metadata.uid ?? '' };
}

/** The request's verdict (denied, failed, replaced): waiting longer cannot help. */
export class CsrVerdictError extends Error {}

type Outcome = { done: true; certPem: string } | { done: false };

function outcome(csr: CertificateSigningRequest, uid: string, logger: Logger): Outcome {
  if (uid && csr.metadata.uid !== uid) throw new CsrVerdictError(`csr "${csr.metadata.name}" changed UIDs`);
  let approved = false;
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Denied') throw new CsrVerdictError(`certificate signing request is denied, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`);
    if (c.type === 'Failed') throw new CsrVerdictError(`certificate signing request failed, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`);
    if (c.type === 'Approved') approved = true;
  }
  if (approved) {
    if (csr.status?.certificate) {
      logger.debug({ csr: csr.metadata.name }, 'Certificate signing request is issued');
      return { done: true, certPem: Buffer.from(csr.status.certificate, 'base64').toString('utf8') };
    }
    logger.debug({ csr: csr.metadata.name }, 'Certificate signing request is approved, waiting to be issued');
  } else {
    logger.debug({ csr: csr.metadata.name }, 'Certificate signing request is not approved, still waiting');
  }
  return { done: false };
}

/** Resolves with the issued certificate (PEM); throws when denied or failed, or when `signal` aborts. */
export async function waitForCertificate(client: CsrApi, name: string, uid: string, logger: Logger, signal: AbortSignal): Promise<string> {
  const fieldSelector = `metadata.name=${name}`;
  for (;;) {
    signal.throwIfAborted();
    const list = await client.list<CertificateSigningRequest>(R.certificatesigningrequests, undefined, { fieldSelector, signal });
    const csr = list.items[0];
    if (!csr) throw new CsrVerdictError(`csr "${name}" was deleted`);
    const first = outcome(csr, uid, logger);
    if (first.done) return first.certPem;
    try {
      for await (const ev of client.watch<CertificateSigningRequest>(R.certificatesigningrequests, undefined, { fieldSelector, resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 300, signal })) {
        if (ev.type === 'DELETED') throw new CsrVerdictError(`csr "${name}" was deleted`);
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        const o = outcome(ev.object, uid, logger);
        if (o.done) return o.certPem;
      }
    } catch (e) {
      // A dropped watch is listed again; a verdict or the caller's abort ends the wait.
      if (signal.aborted || e instanceof CsrVerdictError) throw e;
      logger.debug({ csr: name, err: String(e) }, 'Watch of the certificate signing request ended; listing again');
      await sleep(1000, undefined, { signal });
    }
  }
}
