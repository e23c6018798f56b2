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

export class DelegatingAuthorizer {
  private readonly allowedPath: (path: string) => boolean;
  private readonly cache = new Map<string, { until: number; result: AuthzResult }>();
  private readonly now: () => number;

  constructor(private readonly o: DelegatingAuthorizerOptions) {
    this.allowedPath = pathMatcher(o.alwaysAllowPaths);
    this.now = o.now ?? Date.now;
  }

  /** Throws when the SubjectAccessReview could not be made (the caller answers 500, as Kubernetes). */
  async authorize(user: ServingUser, verb: string, path: string): Promise<AuthzResult> {
    if (user.groups.some((g) => this.o.alwaysAllowGroups.includes(g))) return { decision: 'allow', reason: '' };
    if (this.allowedPath(path)) return { decision: 'allow', reason: '' };
    const client = this.o.subjectAccessReviewClient;
    if (!client) return { decision: 'noOpinion', reason: '' };
    const spec = {
      nonResourceAttributes: { path, verb },
      user: user.username,
      groups: user.groups,
      ...(user.extra ? { extra: user.extra } : {}),
      ...(user.uid ? { uid: user.uid } : {}),
    };
    const key = JSON.stringify(spec);
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.result;
    const review = await client.create<KubeObject>(R.subjectaccessreviews, undefined, { metadata: {}, spec });
    const s = (review.status ?? {}) as SarStatus;
    const reason = s.reason ?? '';
    if (s.allowed && s.denied) throw new Error('webhook subject access review returned both allow and deny response');
    const result: AuthzResult = { decision: s.denied ? 'deny' : s.allowed ? 'allow' : 'noOpinion', reason };
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { until: this.now() + (result.decision === 'allow' ? this.o.allowTtlMs : this.o.denyTtlMs), result });
    return result;
  }
}
