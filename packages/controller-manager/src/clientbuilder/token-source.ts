// A controller's bearer token, from TokenRequest on its ServiceAccount (Kubernetes' clientbuilder
// tokenSourceImpl under a cached token source): asked for 3600 s, used until 80% of its lifetime has passed
// (20% leeway), then fetched again on the next request; a 401 drops it. Fetches ensure the ServiceAccount
// first and retry with back-off (500 ms doubling, 4 tries) as Kubernetes does.
import { R } from '@kemu/api';
import type { RestClient, TokenSource } from '@kemu/client';
import type { Clock, Logger } from '@kemu/base';
import { getOrCreateServiceAccount } from './service-account.ts';

/** Kubernetes' defaultExpirationSeconds and defaultLeewayPercent. */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const DEFAULT_LEEWAY_PERCENT = 20;
/** A shorter remaining lifetime is taken for clock skew and pinned to the TokenRequest minimum. */
const MIN_LIFETIME_MS = 10 * 60_000;
const BACKOFF = { firstMs: 500, factor: 2, steps: 4 };

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

export interface ServiceAccountTokenSourceOptions {
  core: RestClient;
  namespace: string;
  name: string;
  clock: Clock;
  logger: Logger;
  expirationSeconds?: number;
  leewayPercent?: number;
}

export class ServiceAccountTokenSource implements TokenSource {
  private cached: { token: string; expiry: number } | undefined;
  private inflight: Promise<string> | undefined;

  constructor(private readonly o: ServiceAccountTokenSourceOptions) {}

  token(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.o.clock.now() < this.cached.expiry) return Promise.resolve(this.cached.token);
    if (signal?.aborted) return Promise.reject(signal.reason);
    // One fetch at a time, shared by every request waiting for a fresh token; a waiter's abort ends only its wait.
    // Each waiter gets the failure; the shared fetch itself is marked handled, for when every waiter has gone.
    if (!this.inflight) {
      this.inflight = this.fetch().finally(() => (this.inflight = undefined));
      this.inflight.catch(() => undefined);
    }
    const shared = this.inflight;
    if (!signal) return shared;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  reset(): void {
    this.cached = undefined;
  }

  private async fetch(): Promise<string> {
    const { core, namespace, name, clock, logger } = this.o;
    const expirationSeconds = this.o.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    let wait = BACKOFF.firstMs;
    let lastErr: unknown;
    for (let step = 0; step < BACKOFF.steps; step++) {
      if (step > 0) {
        await clock.sleep(wait);
        wait *= BACKOFF.factor;
      }
      try {
        await getOrCreateServiceAccount(core, namespace, name, logger);
      } catch (e) {
        lastErr = e;
        logger.info({ namespace, serviceAccountName: name, err: String(e) }, 'get or create service account failed');
        continue;
      }
      try {
        const tr = await core.createSubresource<TokenRequestStatus>(R.serviceaccounts, namespace, name, 'token', {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds },
        });
        return this.keep(tr);
      } catch (e) {
        lastErr = e;
        logger.info({ namespace, serviceAccountName: name, err: String(e) }, 'get token failed');
      }
    }
    throw new Error(`failed to get token for ${namespace}/${name}: ${String(lastErr)}`);
  }

  private keep(tr: TokenRequestStatus): string {
    const token = tr.status?.token;
    const expiresAt = Date.parse(tr.status?.expirationTimestamp ?? '');
    if (!token || !Number.isFinite(expiresAt)) throw new Error('the TokenRequest response has no token or expirationTimestamp');
    const now = this.o.clock.now();
    const lifetime = Math.max(expiresAt - now, MIN_LIFETIME_MS);
    const leeway = (lifetime * (this.o.leewayPercent ?? DEFAULT_LEEWAY_PERCENT)) / 100;
    this.cached = { token, expiry: now + lifetime - leeway };
    return token;
  }
}
