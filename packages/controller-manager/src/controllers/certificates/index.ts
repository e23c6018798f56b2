// The certificates.k8s.io controllers, in Kubernetes' start order (signing, approving, cleaner), all on by
// default and all running as the certificate-controller ServiceAccount.
import type { ControllerDescriptor } from '../../controller.ts';
import { csrApprovingDescriptor } from './approver.ts';
import { csrCleanerDescriptor } from './cleaner.ts';
import { csrSigningDescriptor } from './signer.ts';

export const CERTIFICATE_CONTROLLERS: readonly ControllerDescriptor[] = [csrSigningDescriptor, csrApprovingDescriptor, csrCleanerDescriptor];
