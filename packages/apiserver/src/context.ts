// Everything a request handler needs, built once per server.
import type { ResourceInfo } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Backend } from '@kemu/store';
import type { TokenIssuerConfig } from './authn/options.ts';
import type { TokenAuthenticator } from './authn/types.ts';
import type { Authorizer } from './authz/types.ts';
import type { Clock } from './clock.ts';
import type { Extensions } from './extensions.ts';
import type { KubeletClient } from './kubelet-client/client.ts';
import type { Metrics } from './metrics.ts';
import type { Registry } from './registry/registry.ts';
import type { TablePrinter } from './strategy/types.ts';
import { DEFAULT_PRINTER } from './table.ts';
import type { Cacher } from './watch/cacher.ts';
import type { WatchHub } from './watch/hub.ts';

export interface ApiContext {
  backend: Backend;
  clock: Clock;
  logger: Logger;
  ext: Extensions;
  registry: Registry;
  cacher: Cacher;
  hub: WatchHub;
  metrics: Metrics;
  /** host:port clients should use (legacy discovery's serverAddressByClientCIDRs). */
  advertise: string;
  /** Watches without timeoutSeconds last this long (randomised ×1–2, as Kubernetes does). */
  minRequestTimeoutMs: number;
  /** The --authorization-mode chain (access reviews ask it; the authorization stage too). */
  authorizer?: Authorizer;
  /** Answers TokenReview (buildAuthenticator's tokenAuthenticator); TokenReview says "not authenticated" without it. */
  tokenAuthenticator?: TokenAuthenticator;
  /** Signs serviceaccounts/<name>/token (buildAuthenticator's tokenIssuer); without it the subresource is 404. */
  tokenIssuer?: TokenIssuerConfig;
  /** Reaches kubelets for pods/log (--kubelet-* flags). */
  kubeletClient: KubeletClient;
  /** Leases read for componentstatuses. */
  componentLeases: Record<string, string>;
}

export function printerFor(ctx: ApiContext, r: ResourceInfo): TablePrinter {
  return ctx.ext.strategyFor(r)?.printer ?? DEFAULT_PRINTER;
}
