// certificatesigningrequest-cleaner-controller (csrcleaner; Kubernetes' CSRCleanerController): once an hour it
// goes through every CertificateSigningRequest and deletes those that are done with — issued and approved more
// than an hour ago, denied or failed more than an hour ago (by the condition's lastUpdateTime), pending (no
// condition at all) for more than 24 hours, or whose issued certificate has expired — so automatic requests
// (kubelets renewing their certificates) do not pile up.
import { R, parseTime, type CertificateSigningRequest } from '@kemu/api';
import { parseCertificates } from '@kemu/pki';
import type { SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { CERTIFICATE_CONTROLLER_SA } from './approver.ts';
import { isIssued } from './csr.ts';

const HOUR = 3_600_000;
export const CLEANER_POLLING_INTERVAL_MS = HOUR;
const APPROVED_EXPIRATION_MS = HOUR;
const DENIED_EXPIRATION_MS = HOUR;
const PENDING_EXPIRATION_MS = 24 * HOUR;

/** Why the request should go (the cleaner's log line), or undefined to keep it. */
export function cleanupReason(csr: CertificateSigningRequest, nowMs: number): string | undefined {
  const conditions = csr.status?.conditions ?? [];
  // A zero (absent) time is never old.
  const olderThan = (t: string | undefined, ms: number) => !!t && nowMs - parseTime(t) > ms;
  const issued = isIssued(csr);
  if (conditions.some((c) => c.type === 'Approved' && issued && olderThan(c.lastUpdateTime, APPROVED_EXPIRATION_MS)))
    return 'Cleaning CSR as it is more than approvedExpiration duration old and approved.';
  if (conditions.some((c) => c.type === 'Denied' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS)))
    return 'Cleaning CSR as it is more than deniedExpiration duration old and denied.';
  if (conditions.some((c) => c.type === 'Failed' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS)))
    return 'Cleaning CSR as it is more than deniedExpiration duration old and failed.';
  if (conditions.length === 0 && olderThan(csr.metadata.creationTimestamp, PENDING_EXPIRATION_MS))
    return 'Cleaning CSR as it is more than pendingExpiration duration old and unhandled.';
  if (conditions.some((c) => c.type === 'Approved') && issued && certificateExpired(csr, nowMs)) return 'Cleaning CSR as the associated certificate is expired.';
  return undefined;
}

/** The first certificate of status.certificate is past its NotAfter (a certificate that does not parse is not). */
function certificateExpired(csr: CertificateSigningRequest, nowMs: number): boolean {
  try {
    const [cert] = parseCertificates(Buffer.from(csr.status?.certificate ?? '', 'base64').toString('latin1'));
    return cert !== undefined && nowMs > cert.notAfter.getTime();
  } catch {
    return false;
  }
}

export class CsrCleanerController implements Controller {
  readonly name = 'certificatesigningrequest-cleaner-controller';
  private readonly csrs: SharedInformer<CertificateSigningRequest>;

  constructor(private readonly ctx: ControllerContext) {
    this.csrs = ctx.informers.informerFor<CertificateSigningRequest>(R.certificatesigningrequests);
  }

  async run(): Promise<void> {
    const { signal, clock, logger } = this.ctx;
    if (!(await this.ctx.informers.waitForCacheSync(signal))) return;
    logger.info({}, 'Starting CSR cleaner controller');
    while (!signal.aborted) {
      await this.clean();
      try {
        await clock.sleep(CLEANER_POLLING_INTERVAL_MS, signal);
      } catch {
        break;
      }
    }
    logger.info({}, 'Shutting down CSR cleaner controller');
  }

  /** One pass over the cache. */
  async clean(): Promise<void> {
    const now = this.ctx.clock.now();
    for (const csr of this.csrs.store.list()) {
      const why = cleanupReason(csr, now);
      if (!why) continue;
      const name = csr.metadata.name ?? '';
      this.ctx.logger.info({ csr: name }, why);
      try {
        await this.ctx.client.delete(R.certificatesigningrequests, undefined, name);
      } catch (e) {
        if (!this.ctx.signal.aborted) this.ctx.logger.error({ csr: name, err: `unable to delete CSR "${name}": ${(e as Error).message}` }, 'Error while attempting to clean CSR');
      }
    }
  }
}

export const csrCleanerDescriptor: ControllerDescriptor = {
  name: 'certificatesigningrequest-cleaner-controller',
  aliases: ['csrcleaner'],
  serviceAccountName: CERTIFICATE_CONTROLLER_SA,
  enabledByDefault: true,
  create: (ctx) => new CsrCleanerController(ctx),
};
