// --rotate-server-certificates (pkg/kubelet/certificate NewKubeletServerCertificateManager): the kubelet asks
// kubernetes.io/kubelet-serving for a certificate for system:node:<name> with the node's host name and IP as SANs.
// No controller approves those: the CSR stays Pending until an admin runs `kubectl certificate approve`. The
// issued pair is kept as kubelet-server-current.pem in the cert dir and served from then on (until then kemu
// serves its self-signed certificate, where Kubernetes' kubelet has none to offer).
import { SIGNER_KUBELET_SERVING } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { CsrApi } from './csr.ts';
import { nodeSubject, servingUsages } from './identity.ts';
import { CertificateManager } from './manager.ts';
import { nodeCertDir } from './node-clients.ts';
import { CertificateFileStore, type StoredPair } from './store.ts';
import type { NodeIdentity } from '../node/status.ts';
import type { TimerQueue } from '../timers.ts';

export interface ServingCertificate {
  /** The stored certificate, when one is there and still valid. */
  current?: { cert: string; key: string };
  manager(onRotated: (pair: StoredPair) => void): CertificateManager;
}

export function servingCertificate(
  flags: { 'cert-dir': string },
  id: NodeIdentity,
  single: boolean,
  client: CsrApi,
  deps: { timers: TimerQueue; clock: Clock; logger: Logger },
): ServingCertificate {
  const store = new CertificateFileStore(nodeCertDir(flags['cert-dir'], id.name, single), 'kubelet-server');
  const stored = store.current();
  const valid = stored && stored.cert.notAfter.getTime() > deps.clock.now() ? stored : undefined;
  return {
    ...(valid ? { current: { cert: valid.certPem, key: valid.keyPem } } : {}),
    manager: (onRotated) =>
      new CertificateManager(valid, {
        signerName: SIGNER_KUBELET_SERVING,
        subject: nodeSubject(id.name),
        hosts: () => [id.name, id.ip],
        usages: servingUsages,
        store,
        client: () => client,
        onRotated,
        ...deps,
      }),
  };
}
