// Delegated authorization of a component's secure port, as DelegatingAuthorizationOptions builds it: members of
// system:masters are allowed outright, paths in --authorization-always-allow-paths are allowed without asking,
// and everything else is a SubjectAccessReview (non-resource path + verb) at the apiserver, its answer cached for
// --authorization-webhook-cache-authorized-ttl / -unauthorized-ttl. With no SubjectAccessReview client, what no
// rule allows is refused.
import { R, type KubeObject } from '@kemu/api';
import type { RestClient } from '../rest.ts';
import type { ServingUser } from './authn.ts';

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthzResult {
  decision: Decision;
  reason: string;
}

export interface DelegatingAuthorizerOptions {
  alwaysAllowGroups: readonly string[];
  alwaysAllowPaths: readonly string[];
  subjectAccessReviewClient?: RestClient;
  allowTtlMs: number;
  denyTtlMs: number;
  now?: () => number;
}

interface SarStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
}

/** SubjectAccessReview's resourceAttributes (RequestInfo of a resource request). */
export interface ResourceAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

const CACHE_LIMIT = 4096;

/** Kubernetes' path authorizer: exact paths, or prefixes ending in "*"; the leading "/" is optional. */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (let p of patterns) {
    p = p.replace(/^\//, '');
    if (p.length > 0 && p.slice(0, -1).includes('*')) throw new Error(`only trailing * allowed in "${p}"`);
    if (p.endsWith('*')) prefixes.push(p.slice(0, -1));
    else exact.add(p);
  }
  return (path) => {
    const p = path.replace(/^\//, '');
    return exact.has(p) || prefixes.some((x) => p.startsWith(x));
  };
}

/**
 * SubjectAccessReviews with their answers cached (Kubernetes' webhook authorizer): allowed for allowTtlMs,
 * refused for denyTtlMs; a failed review is not cached and throws.
 */
export class SubjectAccessReviewer {
  private readonly cache = new Map<string, { until: number; result: AuthzResult }>();
  private readonly now: () => number;

  constructor(
    private readonly client: RestClient,
    private readonly ttl: { allowTtlMs: number; denyTtlMs: number; now?: () => number },
  ) {
    this.now = ttl.now ?? Date.now;
  }

  /** `attributes` is the spec's nonResourceAttributes or resourceAttributes. */
  async review(user: ServingUser, attributes: { nonResourceAttributes: object } | { resourceAttributes: object }): Promise<AuthzResult> {
    const spec = {
      ...attributes,
      user: user.username,
      groups: user.groups,
      ...(user.extra ? { extra: user.extra } : {}),
      ...(user.uid ? { uid: user.uid } : {}),
    };
    const key = JSON.stringify(spec);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.result;
    const review = await this.client.create<KubeObject>(R.subjectaccessreviews, undefined, { metadata: {}, spec });
    const s = (review.status ?? {}) as SarStatus;
    const reason = s.reason ?? '';
    if (s.allowed && s.denied) throw new Error('webhook subject access review returned both allow and deny response');
    const result: AuthzResult = { decision: s.denied ? 'deny' : s.allowed ? 'allow' : 'noOpinion', reason };
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { until: this.now() + (result.decision === 'allow' ? this.ttl.allowTtlMs : this.ttl.denyTtlMs), result });
    return result;
  }
}

export class DelegatingAuthorizer {
  private readonly allowedPath: (path: string) => boolean;
  private readonly reviewer: SubjectAccessReviewer | undefined;

  constructor(private readonly o: DelegatingAuthorizerOptions) {
    this.allowedPath = pathMatcher(o.alwaysAllowPaths);
    const c = o.subjectAccessReviewClient;
    this.reviewer = c ? new SubjectAccessReviewer(c, { allowTtlMs: o.allowTtlMs, denyTtlMs: o.denyTtlMs, ...(o.now ? { now: o.now } : {}) }) : undefined;
  }

  /** Throws when the SubjectAccessReview could not be made (the caller answers 500, as Kubernetes). */
  async authorize(user: ServingUser, verb: string, path: string): Promise<AuthzResult> {
    if (user.groups.some((g) => this.o.alwaysAllowGroups.includes(g))) return { decision: 'allow', reason: '' };
    if (this.allowedPath(path)) return { decision: 'allow', reason: '' };
    if (!this.reviewer) return { decision: 'noOpinion', reason: '' };
    return this.reviewer.review(user, { nonResourceAttributes: { path, verb } });
  }

  /** A resource request (an aggregated API server's): system:masters, else a SubjectAccessReview of its attributes. */
  async authorizeResource(user: ServingUser, a: ResourceAttributes): Promise<AuthzResult> {
    if (user.groups.some((g) => this.o.alwaysAllowGroups.includes(g))) return { decision: 'allow', reason: '' };
    if (!this.reviewer) return { decision: 'noOpinion', reason: '' };
    return this.reviewer.review(user, { resourceAttributes: { ...a } });
  }
}
