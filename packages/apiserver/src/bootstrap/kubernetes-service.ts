// The default/kubernetes Service: ClusterIP = the first address of --service-cluster-ip-range (the
// primary range on a dual-stack cluster: the Service stays SingleStack, as Kubernetes'; firstServiceIP in
// @kemu/base), port 443 to the apiservers' secure port. Created once (replicas race; one wins), repaired if its ports drift.
import { R, StatusError, type KubeObject } from '@kemu/api';
import { ipFamilyOf } from '@kemu/base';
import type { Registry } from '../registry/registry.ts';

export async function ensureKubernetesService(registry: Registry, clusterIP: string, securePort: number): Promise<void> {
  const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }];
  const svc: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports, sessionAffinity: 'None', ipFamilies: [ipFamilyOf(clusterIP) ?? 'IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' },
  };
  // Replicas starting together race for it: one create wins; a loser sees AlreadyExists, or (while the
  // winner's create is still in flight) its ClusterIP claim, and looks again shortly.
  for (let attempt = 0; ; attempt++) {
    if (await registry.getKV(R.services, 'default', 'kubernetes')) return;
    try {
      await registry.create(R.services, structuredClone(svc));
      return;
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'AlreadyExists') return;
      // A claim leaked by a crashed create is reclaimed after the allocator's 60 s grace: wait that long at most.
      if (!(e instanceof StatusError && e.reason === 'Invalid') || attempt >= 700) throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
