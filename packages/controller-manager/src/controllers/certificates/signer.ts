// certificatesigningrequest-signing-controller (csrsigning): one loop per built-in signer, each with its CA from
// --cluster-signing-cert-file/-key-file or that signer's own --cluster-signing-<signer>-cert-file/-key-file
// (the two kinds exclude each other). An approved, not failed, unsigned request for the loop's signer is checked
// against the signer's rules — a request that breaks them gets a Failed condition (SignerValidationFailure, the
// rule's message) — and otherwise gets status.certificate: its subject, key and SANs, its usages, valid from
// 5 minutes ago for spec.expirationSeconds (at least 10 minutes) or --cluster-signing-duration, whichever is
// shorter, and never past the CA's own expiry.
import {
  R,
  SIGNER_KUBE_APISERVER_CLIENT,
  SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
  SIGNER_KUBELET_SERVING,
  SIGNER_LEGACY_UNKNOWN,
  formatTime,
  type CertificateSigningRequest,
} from '@kemu/api';
import { certificatePem, signRequest, type ParsedCsr } from '@kemu/pki';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { CERTIFICATE_CONTROLLER_SA } from './approver.ts';
import { CaProvider } from './ca-provider.ts';
import { CertificateController } from './certificate-controller.ts';
import { apiserverClientUsagesError, hasTrueCondition, isApproved, kubeletClientError, kubeletServingError, parseRequest } from './csr.ts';
import { anySpecificFilesSet, perSignerFiles, PER_SIGNER_FILES, type CsrSigningOptions } from './options.ts';

const MINUTE = 60_000;
/** NotBefore is back-dated this much; it must stay below the shortest duration a request may get. */
const BACKDATE_MS = 5 * MINUTE;
/** Below this a certificate is short-lived and its NotAfter is not back-dated (5 min is ~1% of 8 h). */
const SHORT_MS = 8 * 60 * MINUTE;
/** Twice the back-date: the least a request's expirationSeconds can get. */
const MIN_DURATION_MS = 10 * MINUTE;
/** How often the CA files are looked at for changes (Kubernetes' dynamic file content re-reads every minute). */
export const CA_RELOAD_PERIOD_MS = 60_000;

/** The rule a signer applies to a request: an error message, or undefined when it may be signed. */
type SignerRule = (req: ParsedCsr, usages: readonly string[]) => string | undefined;

const RULES: Record<string, SignerRule> = {
  [SIGNER_KUBELET_SERVING]: kubeletServingError,
  [SIGNER_KUBE_APISERVER_CLIENT_KUBELET]: kubeletClientError,
  [SIGNER_KUBE_APISERVER_CLIENT]: (_req, usages) => apiserverClientUsagesError(usages),
  // No restrictions, for compatibility with certificates.k8s.io/v1beta1.
  [SIGNER_LEGACY_UNKNOWN]: () => undefined,
};

/** The duration a request gets (signer.duration): its expirationSeconds within [10 min, --cluster-signing-duration]. */
export function certificateDurationMs(expirationSeconds: number | undefined, maxMs: number): number {
  if (expirationSeconds === undefined) return maxMs;
  const requested = expirationSeconds * 1000;
  if (requested > maxMs) return maxMs;
  if (requested < MIN_DURATION_MS) return MIN_DURATION_MS;
  return requested;
}

/** One signer's loop ("csrsigning-kubelet-serving", …) with its CA. */
export class SignerLoop {
  readonly loop: CertificateController;

  constructor(
    private readonly ctx: ControllerContext,
    readonly signerName: string,
    loopName: string,
    readonly ca: CaProvider,
    private readonly maxDurationMs: number,
    private readonly reloadPeriodMs = CA_RELOAD_PERIOD_MS,
  ) {
    this.loop = new CertificateController(ctx, loopName, (csr) => this.handle(csr));
  }

  async run(): Promise<void> {
    await Promise.all([this.loop.run(), this.watchCa()]);
  }

  /** Re-reads the CA files now and then; a CA that loads anew re-queues every request (some may be waiting for it). */
  private async watchCa(): Promise<void> {
    const { clock, signal } = this.ctx;
    while (!signal.aborted) {
      try {
        await clock.sleep(this.reloadPeriodMs, signal);
      } catch {
        return;
      }
      if (this.ca.refresh()) this.loop.enqueueAll();
    }
  }

  private async handle(csr: CertificateSigningRequest): Promise<void> {
    if (!isApproved(csr) || hasTrueCondition(csr, 'Failed')) return;
    if (csr.spec.signerName !== this.signerName) return;
    const name = csr.metadata.name ?? '';
    let req: ParsedCsr;
    try {
      req = await parseRequest(csr);
    } catch (e) {
      throw new Error(`unable to parse csr "${name}": ${(e as Error).message}`);
    }
    const usages = csr.spec.usages ?? [];
    const invalid = RULES[this.signerName]?.(req, usages);
    if (invalid !== undefined) {
      const failed = { type: 'Failed', status: 'True' as const, reason: 'SignerValidationFailure', message: invalid, lastUpdateTime: formatTime(this.ctx.clock.now()) };
      const conditions = [...(csr.status?.conditions ?? []), failed];
      try {
        await this.ctx.client.updateStatus(R.certificatesigningrequests, undefined, { ...csr, status: { ...csr.status, conditions } });
      } catch (e) {
        throw new Error(`error adding failure condition for csr: ${(e as Error).message}`);
      }
      return;
    }
    let pem: string;
    try {
      const cert = await signRequest(this.ca.current(), req, {
        ttlMs: certificateDurationMs(csr.spec.expirationSeconds, this.maxDurationMs),
        usages,
        backdateMs: BACKDATE_MS,
        shortMs: SHORT_MS,
        nowMs: this.ctx.clock.now(),
      });
      pem = certificatePem(cert);
    } catch (e) {
      throw new Error(`error auto signing csr: ${(e as Error).message}`);
    }
    const certificate = Buffer.from(pem).toString('base64');
    try {
      await this.ctx.client.updateStatus(R.certificatesigningrequests, undefined, { ...csr, status: { ...csr.status, certificate } });
    } catch (e) {
      throw new Error(`error updating signature for csr: ${(e as Error).message}`);
    }
  }
}

const LOOP_NAMES: Record<string, string> = {
  [SIGNER_KUBELET_SERVING]: 'csrsigning-kubelet-serving',
  [SIGNER_KUBE_APISERVER_CLIENT_KUBELET]: 'csrsigning-kubelet-client',
  [SIGNER_KUBE_APISERVER_CLIENT]: 'csrsigning-kube-apiserver-client',
  [SIGNER_LEGACY_UNKNOWN]: 'csrsigning-legacy-unknown',
};

export class CsrSigningController implements Controller {
  readonly name = 'certificatesigningrequest-signing-controller';
  readonly signers: SignerLoop[] = [];

  constructor(ctx: ControllerContext, reloadPeriodMs = CA_RELOAD_PERIOD_MS) {
    const o: CsrSigningOptions = ctx.options;
    const log = ctx.logger;
    const missingSingle = o['cluster-signing-cert-file'] === '' || o['cluster-signing-key-file'] === '';
    const specific = anySpecificFilesSet(o);
    if (missingSingle && !specific) {
      log.info({}, 'Skipping CSR signer controller because no csr cert/key was specified');
      return;
    }
    for (const { signer, stem } of PER_SIGNER_FILES) {
      const files = specific ? perSignerFiles(o, stem) : { cert: o['cluster-signing-cert-file'], key: o['cluster-signing-key-file'] };
      if (files.cert === '' && files.key === '') {
        log.info({ controller: signer }, 'Skipping CSR signer controller because specific files were specified for other signers and not this one');
        continue;
      }
      const ca = new CaProvider(files.cert, files.key, log.child({ signer }));
      // Kubernetes stops the process here when the CA does not load; kemu logs it (in refresh) and keeps the
      // loop, whose signing attempts fail until the files can be read.
      ca.refresh();
      this.signers.push(new SignerLoop(ctx, signer, LOOP_NAMES[signer] ?? signer, ca, o['cluster-signing-duration'], reloadPeriodMs));
    }
  }

  async run(): Promise<void> {
    await Promise.all(this.signers.map((s) => s.run()));
  }
}

export const csrSigningDescriptor: ControllerDescriptor = {
  name: 'certificatesigningrequest-signing-controller',
  aliases: ['csrsigning'],
  serviceAccountName: CERTIFICATE_CONTROLLER_SA,
  enabledByDefault: true,
  create: (ctx) => new CsrSigningController(ctx),
};
