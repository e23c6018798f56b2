// client-go's certificate manager (util/certificate/manager.go) for one node and one signer: rotation at a
// deadline jittered between 70 % and 90 % of the certificate's life (at once when there is none or it no longer
// fits), a new key and a CSR named csr-<random> each attempt, retries after 2 s doubling for 5 steps and then
// every 32 s; an issued certificate is stored (<pair>-current.pem) and handed to onRotated. One entry on the
// process' timer heap per node and signer, nothing else between rotations.
import type { KeyObject } from 'node:crypto';
import type { KeyUsage } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { createCsr, csrPem, generatePrivateKey, parseCertificates, privateKeyPem, type DistinguishedName } from '@kemu/pki';
import type { TimerHandle, TimerQueue } from '../timers.ts';
import { requestCertificate, waitForCertificate, type CsrApi } from './csr.ts';
import type { CertificateFileStore, StoredPair } from './store.ts';

/** certificateWaitTimeout: how long one CSR is waited on. */
const WAIT_MS = 15 * 60_000;
const BACKOFF = { firstMs: 2000, factor: 2, jitter: 0.1, steps: 5, pollMs: 32_000 };

export interface CertificateManagerOptions {
  signerName: string;
  subject: DistinguishedName;
  /** SANs (serving certificates): the node's host names and IPs. */
  hosts?: () => string[];
  usages: (key: KeyObject) => KeyUsage[];
  store: CertificateFileStore;
  /** The client to ask with: the node's own while its certificate is valid, else the bootstrap one when there is one. */
  client: (currentValid: boolean) => CsrApi;
  onRotated: (pair: StoredPair) => void;
  timers: TimerQueue;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/** Go's time.Time String() form: "2026-12-03 13:21:10 +0000 UTC". */
export function goTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/** notBefore + life × (0.7 … 0.9) (jitteryDuration: wait.Jitter(life, 0.2) − 0.3 × life). */
export function rotationDeadline(notBefore: number, notAfter: number, random: () => number): number {
  const life = notAfter - notBefore;
  return notBefore + life * (0.7 + 0.2 * random());
}

export class CertificateManager {
  private timer: TimerHandle | undefined;
  private failures = 0;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly random: () => number;

  constructor(
    private current: StoredPair | undefined,
    private readonly o: CertificateManagerOptions,
  ) {
    this.random = o.random ?? Math.random;
  }

  get certificate(): StoredPair | undefined {
    return this.current;
  }

  start(): void {
    this.o.logger.info(`${this.o.signerName}: Certificate rotation is enabled`);
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.o.timers.cancel(this.timer);
    this.abort.abort();
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = this.o.clock.now();
    let at = now;
    if (this.current) {
      const notBefore = this.current.cert.notBefore.getTime();
      const notAfter = this.current.cert.notAfter.getTime();
      at = Math.max(now, rotationDeadline(notBefore, notAfter, this.random));
      this.o.logger.info(`${this.o.signerName}: Certificate expiration is ${goTime(notAfter)}, rotation deadline is ${goTime(at)}`);
      this.o.logger.info(`${this.o.signerName}: Waiting ${Math.round((at - now) / 1000)}s for next certificate rotation`);
    }
    this.timer = this.o.timers.at(at, () => void this.rotate());
  }

  private async rotate(): Promise<void> {
    if (this.stopped) return;
    this.o.logger.info(`${this.o.signerName}: Rotating certificates`);
    try {
      const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
      const request = csrPem(await createCsr(this.o.subject, key, this.o.hosts?.() ?? []));
      const valid = this.current !== undefined && this.current.cert.notAfter.getTime() > this.o.clock.now();
      const client = this.o.client(valid);
      const { name, uid } = await requestCertificate(client, { requestPem: request, signerName: this.o.signerName, usages: this.o.usages(key) });
      const certPem = await waitForCertificate(client, name, uid, this.o.logger, AbortSignal.any([this.abort.signal, AbortSignal.timeout(WAIT_MS)]));
      const keyPem = privateKeyPem(key);
      this.o.store.update(certPem, keyPem, this.o.clock.now());
      this.current = { certPem, keyPem, cert: parseCertificates(certPem)[0]! };
      this.failures = 0;
      this.o.onRotated(this.current);
      this.schedule();
    } catch (e) {
      if (this.stopped) return;
      const msg = (e as Error).name === 'TimeoutError' ? 'timed out waiting for the condition' : (e as Error).message;
      this.o.logger.error(`${this.o.signerName}: Failed while requesting a signed certificate from the control plane: ${msg}`);
      const step = this.failures++;
      let wait: number;
      if (step < BACKOFF.steps) wait = BACKOFF.firstMs * BACKOFF.factor ** step * (1 + BACKOFF.jitter * this.random());
      else {
        if (step === BACKOFF.steps) this.o.logger.error(`${this.o.signerName}: Reached backoff limit, still unable to rotate certs: ${msg}`);
        wait = BACKOFF.pollMs;
      }
      this.timer = this.o.timers.after(wait, () => void this.rotate());
    }
  }
}
