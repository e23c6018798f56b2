// The default/kubernetes Service: ClusterIP = the first address of --service-cluster-ip-range, port 443
// to the apiservers' secure port. Created once (replicas race; one wins), repaired if its ports drift.
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';

/** The first usable address of an IPv4 CIDR ("10.96.0.0/12" → "10.96.0.1"). */
export function firstServiceIP(cidr: string): string {
  const [addr, bitsText] = cidr.split('/');
  const parts = (addr ?? '').split('.').map(Number);
  const bits = Number(bitsText);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255) || !Number.isInteger(bits) || bits < 0 || bits > 30) {
    throw new Error(`invalid --service-cluster-ip-range "${cidr}": expected an IPv4 CIDR such as 10.96.0.0/12`);
  }
  const n = (((parts[0] as number) << 24) | ((parts[1] as number) << 16) | ((parts[2] as number) << 8) | (parts[3] as number)) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const first = ((n & mask) >>> 0) + 1;
  return [first >>> 24, (first >>> 16) & 255, (first >>> 8) & 255, first & 255].join('.');
}

export async function ensureKubernetesService(registry: Registry, clusterIP: string, securePort: number): Promise<void> {
  const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: securePort }];
  const svc: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports, sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' },
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
