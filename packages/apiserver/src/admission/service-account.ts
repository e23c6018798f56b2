// ServiceAccount admission, defaulting part only: a pod without serviceAccountName runs as "default".
// (Token projection and the existence check of the real plugin are not done.)
import type { AdmissionPlugin } from './types.ts';
import { podCreate } from './types.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export const serviceAccountPlugin: AdmissionPlugin = {
  name: 'ServiceAccount',
  admit(attrs) {
    const pod = podCreate(attrs);
    if (!pod) return;
    const spec = pod.spec;
    // Mirror pods (static pods reported by a kubelet) are left alone, as Kubernetes does.
    if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
    if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
      spec.serviceAccountName = typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '' ? spec.serviceAccount : DEFAULT_SERVICE_ACCOUNT;
    }
    spec.serviceAccount = spec.serviceAccountName;
  },
};
