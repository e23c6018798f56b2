// Each replica's identity Lease kube-system/apiserver-<hash> (label apiserver.kubernetes.io/identity=
// kube-apiserver, kubernetes.io/hostname=<host>), created at start and renewed every 10 s, as Kubernetes'
// APIServerIdentity does. The name and holder are Kubernetes' own: "apiserver-" + the lower-case, unpadded
// base32 of the first 16 bytes of sha256 over the host name and "kube-apiserver" (each prefixed with its
// 16-bit big-endian length, as Go's cryptobyte builder writes them); the holder is "<name>_<uuid>".
import { formatMicroTime, R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Registry } from '../registry/registry.ts';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const COMPONENT = 'kube-apiserver';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (Go's base32.StdEncoding.WithPadding(base32.NoPadding)). */
export function base32NoPadding(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  return out;
}

function lengthPrefixed(text: string): Buffer {
  const b = Buffer.from(text, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}

/** Kubernetes' identity Lease name for a host: "controller-1" → "apiserver-tyzveoctxbnh6lvbkdt2xqncle". */
export function identityLeaseName(hostname: string): string {
  const hash = createHash('sha256').update(Buffer.concat([lengthPrefixed(hostname), lengthPrefixed(COMPONENT)])).digest();
  return `apiserver-${base32NoPadding(hash.subarray(0, 16)).toLowerCase()}`;
}

export interface IdentityLeaseOptions {
  registry: Registry;
  clock: Clock;
  logger: Logger;
  name: string;
  holder: string;
  /** The host name the name was derived from (label kubernetes.io/hostname). */
  hostname: string;
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
        // Kubernetes' heartbeat sets the labels on every renewal too.
        cur.metadata.labels = { ...(cur.metadata.labels ?? {}), [IDENTITY_LABEL]: COMPONENT, [HOSTNAME_LABEL]: o.hostname };
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
          labels: { [IDENTITY_LABEL]: COMPONENT, [HOSTNAME_LABEL]: o.hostname },
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
