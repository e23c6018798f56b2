// Kubernetes' certificates.CertificateController, the loop the approver and each signer run: every
// CertificateSigningRequest event queues the request's name; a request that already has a certificate is done;
// any other goes to the handler (as a copy). A failing handler is retried with the loop's own back-off
// (200 ms doubling to 1000 s, overall 10 qps / burst 100), so a SubjectAccessReview that says no now is asked
// again later.
import { R, type CertificateSigningRequest } from '@kemu/api';
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { ControllerContext } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { isIssued } from './csr.ts';

export type CsrHandler = (csr: CertificateSigningRequest) => Promise<void>;

export class CertificateController {
  readonly csrs: SharedInformer<CertificateSigningRequest>;
  readonly worker: KeyedWorker;

  constructor(
    ctx: ControllerContext,
    readonly name: string,
    private readonly handler: CsrHandler,
    workers = 5,
  ) {
    this.csrs = ctx.informers.informerFor<CertificateSigningRequest>(R.certificatesigningrequests);
    const rateLimiter = new MaxOfRateLimiter<string>(new ItemExponentialFailureRateLimiter(200, 1_000_000), new BucketRateLimiter(10, 100, ctx.clock));
    this.worker = new KeyedWorker(ctx, { name, workers, sync: (k) => this.sync(k), rateLimiter }).waitFor(this.csrs);
    this.csrs.addEventHandler({
      onAdd: (o) => this.worker.enqueue(o),
      onUpdate: (_old, o) => this.worker.enqueue(o),
      onDelete: (o) => this.worker.enqueue(unwrapDeleted(o)),
    });
  }

  /** Queues every request the cache holds (after a CA becomes readable, say). */
  enqueueAll(): void {
    for (const csr of this.csrs.store.list()) this.worker.enqueue(csr);
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private async sync(key: string): Promise<void> {
    const csr = this.csrs.store.get(key);
    if (!csr || isIssued(csr)) return;
    await this.handler(structuredClone(csr));
  }
}
