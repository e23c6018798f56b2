// Where each controller's client comes from (Kubernetes' ControllerClientBuilder). Without
// --use-service-account-credentials every controller shares the manager's own client; with it each
// controller gets a client that authenticates as system:serviceaccount:kube-system:<sa> with a TokenRequest
// token (DynamicControllerClientBuilder): same server and CA, no client certificate, the user agent
// suffixed with that username, and the manager's leader-election write fence.
import { RestClient, type ClientConfig } from '@kemu/client';
import type { Clock, Logger } from '@kemu/base';
import { getOrCreateServiceAccount } from './service-account.ts';
import { ServiceAccountTokenSource } from './token-source.ts';

/** Kubernetes' metav1.NamespaceSystem: where the controllers' ServiceAccounts live. */
export const CONTROLLER_SA_NAMESPACE = 'kube-system';

export interface ControllerClientBuilder {
  /** The client a controller running as ServiceAccount `serviceAccountName` uses. */
  client(serviceAccountName: string): Promise<RestClient>;
}

/** Every controller uses the manager's own client (the default). */
export function rootClientBuilder(client: RestClient): ControllerClientBuilder {
  return { client: () => Promise.resolve(client) };
}

/** rest.AnonymousClientConfig: where the server is and how to trust it, without any credential. */
export function anonymousClientConfig(c: ClientConfig): ClientConfig {
  const { certData: _cert, keyData: _key, token: _token, ...rest } = c;
  return rest;
}

export interface ServiceAccountClientBuilderOptions {
  /** The manager's client: provisions ServiceAccounts, requests tokens, and lends its write fence. */
  core: RestClient;
  clock: Clock;
  logger: Logger;
  namespace?: string;
  expirationSeconds?: number;
  leewayPercent?: number;
}

export class ServiceAccountClientBuilder implements ControllerClientBuilder {
  /**
   * One token source (one cached token) per ServiceAccount, as DynamicControllerClientBuilder's
   * roundTripperFuncMap; but each client() is a new client with its own rate limiter, as each ClientOrDie is a
   * new clientset: csrapproving and csrsigning (both certificate-controller) do not share one QPS budget.
   */
  private readonly tokenSources = new Map<string, Promise<ServiceAccountTokenSource>>();

  constructor(private readonly o: ServiceAccountClientBuilderOptions) {}

  async client(serviceAccountName: string): Promise<RestClient> {
    const { core, clock, logger } = this.o;
    const namespace = this.o.namespace ?? CONTROLLER_SA_NAMESPACE;
    const tokenSource = await this.tokenSource(namespace, serviceAccountName);
    const username = `system:serviceaccount:${namespace}:${serviceAccountName}`;
    const base = core.config.userAgent;
    const config = { ...anonymousClientConfig(core.config), userAgent: base ? `${base}/${username}` : username };
    const client = new RestClient(config, { clock, logger, tokenSource });
    // A deposed leader's controllers must not write either.
    client.fenceWrites(core.writeFence);
    return client;
  }

  private tokenSource(namespace: string, name: string): Promise<ServiceAccountTokenSource> {
    let t = this.tokenSources.get(name);
    if (!t) {
      const { core, clock, logger } = this.o;
      t = getOrCreateServiceAccount(core, namespace, name, logger).then(
        () =>
          new ServiceAccountTokenSource({
            core,
            namespace,
            name,
            clock,
            logger: logger.child({ serviceAccount: name }),
            expirationSeconds: this.o.expirationSeconds,
            leewayPercent: this.o.leewayPercent,
          }),
      );
      t.catch(() => this.tokenSources.delete(name));
      this.tokenSources.set(name, t);
    }
    return t;
  }
}
