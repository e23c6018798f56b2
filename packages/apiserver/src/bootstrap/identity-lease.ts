// Each replica's identity Lease kube-system/apiserver-<id> (label apiserver.kubernetes.io/identity=
// kube-apiserver), created at start and renewed every 10 s, as Kubernetes' APIServerIdentity does.
import { formatMicroTime, R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.ts';
import type { Registry } from '../registry/registry.ts';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';

/** "apiserver-0" from --hostname-override "apiserver-0"; else Kubernetes' "apiserver-<hash of hostname>". */
export function identityLeaseName(override: string): string {
  if (override) return override.startsWith('apiserver-') ? override : `apiserver-${override}`;
  const h = createHash('sha256').update(hostname()).digest('hex').slice(0, 26);
  return `apiserver-${h}`;
}

export interface IdentityLeaseOptions {
  registry: Registry;
  clock: Clock;
  logger: Logger;
  name: string;
  holder: string;
  renewIntervalMs: number;
  leaseDurationSeconds?: number;
  /** Kept on the Lease (e.g. where this replica serves, for the endpoint reconciler). */
  annotations?: Record<string, string>;
}

export function startIdentityLease(o: IdentityLeaseOptions): { stop(): void; renew(): Promise<void> } {
  const renew = async () => {
    const now = formatMicroTime(o.clock.now());
    try {
      await o.registry.guaranteedUpdate(R.leases, 'kube-system', o.name, (cur) => {
        cur.spec = { ...((cur.spec as object | undefined) ?? {}), holderIdentity: o.holder, leaseDurationSeconds: o.leaseDurationSeconds ?? 3600, renewTime: now };
        if (o.annotations) cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), ...o.annotations };
        return cur;
      });
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
      const lease: KubeObject = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: o.name,
          namespace: 'kube-system',
          labels: { [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': hostname() },
          ...(o.annotations ? { annotations: { ...o.annotations } } : {}),
        },
        spec: { holderIdentity: o.holder, leaseDurationSeconds: o.leaseDurationSeconds ?? 3600, acquireTime: now, renewTime: now },
      };
      try {
        await o.registry.create(R.leases, lease);
      } catch (e2) {
        if (!(e2 instanceof StatusError && e2.reason === 'AlreadyExists')) throw e2;
      }
    }
  };
  const timer = setInterval(() => {
    renew().catch((e: unknown) => o.logger.warn({ err: String(e) }, 'identity lease renewal failed'));
  }, o.renewIntervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), renew };
}
