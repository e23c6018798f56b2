// certificatesigningrequest-approving-controller (csrapproving; Kubernetes' sarApprover): a pending
// kubernetes.io/kube-apiserver-client-kubelet request that is a node's client request (O=system:nodes only,
// CN system:node:<name>, no SANs, the kubelet's usages) is approved through /approval when a
// SubjectAccessReview says its requester may `create` certificatesigningrequests/selfnodeclient (a renewal: CN
// is the requester's own user name) or certificatesigningrequests/nodeclient. Anything else — kubelet-serving
// requests included — is left for an administrator. A review that says no is asked again with back-off.
import { R, SIGNER_KUBE_APISERVER_CLIENT_KUBELET, type CertificateSigningRequest, type KubeObject } from '@kemu/api';
import type { ParsedCsr } from '@kemu/pki';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { IgnorableError } from '../base.ts';
import { CertificateController } from './certificate-controller.ts';
import { approvalState, isIssued, kubeletClientError, parseRequest } from './csr.ts';

/** The ServiceAccount all three certificate controllers run as with --use-service-account-credentials. */
export const CERTIFICATE_CONTROLLER_SA = 'certificate-controller';

interface Recognizer {
  recognize(csr: CertificateSigningRequest, req: ParsedCsr): boolean;
  subresource: 'selfnodeclient' | 'nodeclient';
  successMessage: string;
}

const isNodeClientCert = (csr: CertificateSigningRequest, req: ParsedCsr): boolean =>
  csr.spec.signerName === SIGNER_KUBE_APISERVER_CLIENT_KUBELET && kubeletClientError(req, csr.spec.usages ?? []) === undefined;

// In Kubernetes' order: a renewal is recognised (and reviewed) first.
const RECOGNIZERS: readonly Recognizer[] = [
  {
    recognize: (csr, req) => csr.spec.username === req.subject.CN && isNodeClientCert(csr, req),
    subresource: 'selfnodeclient',
    successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    recognize: isNodeClientCert,
    subresource: 'nodeclient',
    successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

interface SubjectAccessReview extends KubeObject {
  status?: { allowed?: boolean };
}

export class CsrApprovingController implements Controller {
  readonly name = 'certificatesigningrequest-approving-controller';
  private readonly loop: CertificateController;

  constructor(private readonly ctx: ControllerContext) {
    this.loop = new CertificateController(ctx, 'csrapproving', (csr) => this.handle(csr));
  }

  run(): Promise<void> {
    return this.loop.run();
  }

  private async handle(csr: CertificateSigningRequest): Promise<void> {
    if (isIssued(csr)) return;
    const { approved, denied } = approvalState(csr);
    if (approved || denied) return;
    let req: ParsedCsr;
    try {
      req = await parseRequest(csr);
    } catch (e) {
      throw new Error(`unable to parse csr "${csr.metadata.name ?? ''}": ${(e as Error).message}`);
    }
    const tried: string[] = [];
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, req)) continue;
      tried.push(r.subresource);
      if (!(await this.authorize(csr, r.subresource))) continue;
      const conditions = [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True' as const, reason: 'AutoApproved', message: r.successMessage }];
      try {
        await this.ctx.client.update(R.certificatesigningrequests, undefined, { ...csr, status: { ...csr.status, conditions } }, { subresource: 'approval' });
      } catch (e) {
        throw new Error(`error updating approval for csr: ${(e as Error).message}`);
      }
      return;
    }
    if (tried.length > 0) throw new IgnorableError(`recognized csr "${csr.metadata.name ?? ''}" as [${tried.join(' ')}] but subject access review was not approved`);
  }

  /** Whether the requester (as the apiserver recorded it in the spec) may create the given subresource. */
  private async authorize(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const spec = {
      user: csr.spec.username,
      uid: csr.spec.uid,
      groups: csr.spec.groups,
      extra: csr.spec.extra,
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource },
    };
    const sar = await this.ctx.client.create<SubjectAccessReview>(R.subjectaccessreviews, undefined, { metadata: {}, spec } as SubjectAccessReview);
    return sar.status?.allowed === true;
  }
}

export const csrApprovingDescriptor: ControllerDescriptor = {
  name: 'certificatesigningrequest-approving-controller',
  aliases: ['csrapproving'],
  serviceAccountName: CERTIFICATE_CONTROLLER_SA,
  enabledByDefault: true,
  create: (ctx) => new CsrApprovingController(ctx),
};
