// Projected ServiceAccount tokens (pkg/kubelet/token/token_manager.go and the projected volume plugin): for each
// serviceAccountToken source of a pod's projected volumes (the kube-api-access-* volume the ServiceAccount
// admission plugin adds) the node asks TokenRequest (serviceaccounts/<sa>/token) for a token bound to the pod
// (name and uid), with the source's audience and expirationSeconds, when the pod starts; it asks again once the
// token is older than 80 % of its life or 24 h (less up to 10 s of jitter), and stops when the pod ends. The
// latest token is kept for the volume's `token` file (what an exec'd `cat` reads); the next request is an entry
// on the process' timer heap.
// A pod without such volumes costs nothing. A failed request is logged as the volume's mount failure and
// retried with back-off; kemu starts the pod's containers anyway (they read no files).
import { R, StatusError, type Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { KubeApi } from '../api.ts';
import type { TimerHandle, TimerQueue } from '../timers.ts';

const MAX_TTL_MS = 24 * 3600_000;
const MAX_JITTER_MS = 10_000;
const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 120_000;

interface TokenSource {
  volume: string;
  audiences: string[];
  expirationSeconds: number;
}

interface Entry {
  source: TokenSource;
  timer?: TimerHandle;
  failures: number;
  token?: string;
}

interface PodTokens {
  namespace: string;
  name: string;
  uid: string;
  serviceAccount: string;
  entries: Entry[];
}

interface TokenRequestStatus {
  status?: { expirationTimestamp?: string; token?: string };
  spec?: { expirationSeconds?: number };
}

/** The pod's projected serviceAccountToken sources (expirationSeconds defaults to 3600, as the API's default). */
export function tokenSources(pod: Pod): TokenSource[] {
  const out: TokenSource[] = [];
  for (const v of (pod.spec.volumes ?? []) as { name: string; projected?: { sources?: { serviceAccountToken?: { audience?: string; expirationSeconds?: number } }[] } }[]) {
    for (const s of v.projected?.sources ?? []) {
      const t = s.serviceAccountToken;
      if (!t) continue;
      out.push({ volume: v.name, audiences: t.audience ? [t.audience] : [], expirationSeconds: t.expirationSeconds ?? 3600 });
    }
  }
  return out;
}

/** When the token manager's requiresRefresh turns true: 80 % of the life, or 24 h after issue, less the jitter. */
export function refreshAt(expiresAt: number, expirationSeconds: number, jitterMs: number): number {
  const issuedAt = expiresAt - expirationSeconds * 1000;
  return Math.min(issuedAt + MAX_TTL_MS, expiresAt - expirationSeconds * 200) - jitterMs;
}

export class ServiceAccountTokens {
  private readonly pods = new Map<string, PodTokens>();
  /** Requests made (for tests and metrics). */
  requests = 0;

  constructor(
    private readonly deps: { client: KubeApi; timers: TimerQueue; clock: Clock; logger: Logger; random?: () => number },
  ) {}

  /** The pod's volumes are set up: a token for each source. A pod already known is left alone. */
  podStarted(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (this.pods.has(uid)) return;
    const sources = tokenSources(pod);
    if (sources.length === 0) return;
    const p: PodTokens = {
      namespace: pod.metadata.namespace ?? '',
      name: pod.metadata.name ?? '',
      uid,
      serviceAccount: pod.spec.serviceAccountName || 'default',
      entries: sources.map((source) => ({ source, failures: 0 })),
    };
    this.pods.set(uid, p);
    for (const e of p.entries) void this.request(p, e);
  }

  /** The pod ended or is gone: its tokens are no longer refreshed. */
  podStopped(uid: string): void {
    const p = this.pods.get(uid);
    if (!p) return;
    this.pods.delete(uid);
    for (const e of p.entries) this.deps.timers.cancel(e.timer);
  }

  /** The latest token issued for the pod's projected volume. */
  token(uid: string, volume: string): string | undefined {
    return this.pods.get(uid)?.entries.find((e) => e.source.volume === volume)?.token;
  }

  size(): number {
    return this.pods.size;
  }

  private async request(p: PodTokens, e: Entry): Promise<void> {
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: e.source.audiences, expirationSeconds: e.source.expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: p.name, uid: p.uid } },
    };
    this.requests++;
    let next: number;
    try {
      const tr = await this.deps.client.createSubresource<TokenRequestStatus>(R.serviceaccounts, p.namespace, p.serviceAccount, 'token', body);
      const exp = Date.parse(tr.status?.expirationTimestamp ?? '');
      const seconds = tr.spec?.expirationSeconds ?? e.source.expirationSeconds;
      const now = this.deps.clock.now();
      e.failures = 0;
      if (typeof tr.status?.token === 'string') e.token = tr.status.token;
      this.deps.logger.debug({ pod: `${p.namespace}/${p.name}`, volume: e.source.volume, serviceAccount: p.serviceAccount, expires: tr.status?.expirationTimestamp }, 'Fetched service account token');
      next = Number.isFinite(exp) ? Math.max(now + 1000, refreshAt(exp, seconds, (this.deps.random ?? Math.random)() * MAX_JITTER_MS)) : now + seconds * 800;
    } catch (err) {
      const msg = (err as Error).message;
      this.deps.logger.error({ pod: `${p.namespace}/${p.name}`, volume: e.source.volume }, `MountVolume.SetUp failed for volume "${e.source.volume}" : failed to fetch token: ${msg}`);
      // No TokenRequest endpoint (the apiserver has no signing key): asking again cannot help.
      if (err instanceof StatusError && err.code === 404 && msg === 'the server could not find the requested resource') return;
      next = this.deps.clock.now() + Math.min(RETRY_FIRST_MS * 2 ** e.failures++, RETRY_MAX_MS);
    }
    if (this.pods.get(p.uid) !== p) return;
    e.timer = this.deps.timers.at(next, () => void this.request(p, e));
  }
}
