// The impersonation stage (Kubernetes' WithImpersonation): Impersonate-User, -Group, -Uid and -Extra-<key>
// headers make the request act as someone else, each asked of the authorizer with the `impersonate` verb
// (users, groups, uids, userextras/<key>; a ServiceAccount user as serviceaccounts in its namespace). The
// headers are removed once used; audit keeps the authenticated user.
import { errors } from '@kemu/api';
import type { IncomingMessage } from 'node:http';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SERVICE_ACCOUNT_PREFIX, SERVICE_ACCOUNTS_GROUP, type UserInfo } from '../authn/user.ts';
import { forbiddenError } from '../authz/forbidden.ts';
import type { Attributes, Authorizer } from '../authz/types.ts';
import { requestState } from './request-state.ts';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

type Wanted = { kind: 'users' | 'groups' | 'uids' | 'serviceaccounts' | 'userextras'; name: string; namespace?: string; subresource?: string; apiGroup: string };

function values(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** An extra key as sent (percent-encoded, as headers cannot hold every character), lower-cased as Kubernetes keys are. */
function extraKey(header: string): string {
  const raw = header.slice(EXTRA_PREFIX.length);
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

function serviceAccountOf(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function hasImpersonation(headers: IncomingMessage['headers']): boolean {
  for (const k of Object.keys(headers)) if (k === USER || k === GROUP || k === UID || k.startsWith(EXTRA_PREFIX)) return true;
  return false;
}

/** Applies the request's Impersonate-* headers, if any: afterwards the request acts as the impersonated user. */
export async function impersonate(raw: IncomingMessage, authorizer: Authorizer | undefined): Promise<void> {
  const headers = raw.headers;
  if (!hasImpersonation(headers)) return;
  const state = requestState(raw);
  const requestor = state.user;
  if (!requestor) throw errors.internal('impersonation before authentication');
  const usernames = values(headers[USER]);
  const groups = values(headers[GROUP]);
  const uids = values(headers[UID]);
  const extra: Record<string, string[]> = {};
  for (const k of Object.keys(headers)) if (k.startsWith(EXTRA_PREFIX)) (extra[extraKey(k)] ??= []).push(...values(headers[k]));
  const username = usernames[0];
  if (username === undefined || username === '') {
    // Kubernetes answers this with a 500; it is the client's mistake, so kemu says 400 with the same words.
    const asked = [...groups.map((g) => `{Group ${g}}`), ...uids.map((u) => `{UID ${u}}`), ...Object.entries(extra).flatMap(([k, vs]) => vs.map((v) => `{Extra ${k}=${v}}`))];
    throw errors.badRequest(`requested [${asked.join(' ')}] without impersonating a user`);
  }
  const wanted: Wanted[] = [];
  const sa = serviceAccountOf(username);
  wanted.push(sa ? { kind: 'serviceaccounts', name: sa.name, namespace: sa.namespace, apiGroup: '' } : { kind: 'users', name: username, apiGroup: '' });
  for (const g of groups) wanted.push({ kind: 'groups', name: g, apiGroup: '' });
  for (const u of uids) wanted.push({ kind: 'uids', name: u, apiGroup: 'authentication.k8s.io' });
  for (const [k, vs] of Object.entries(extra)) for (const v of vs) wanted.push({ kind: 'userextras', subresource: k, name: v, apiGroup: 'authentication.k8s.io' });
  for (const w of wanted) {
    const attrs: Attributes = {
      user: requestor,
      verb: 'impersonate',
      resourceRequest: true,
      path: '',
      apiGroup: w.apiGroup,
      apiVersion: '',
      resource: w.kind,
      subresource: w.subresource ?? '',
      namespace: w.namespace ?? '',
      name: w.name,
    };
    const d = authorizer ? await authorizer.authorize(attrs) : { decision: 'allow' as const, reason: '' };
    if (d.decision !== 'allow') throw forbiddenError(attrs, d.reason);
  }
  const finalGroups = [...groups];
  // A ServiceAccount's groups are a fixed mapping, added when none were asked for.
  if (sa && groups.length === 0) finalGroups.push(SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${sa.namespace}`);
  if (username !== ANONYMOUS_USER) {
    if (!finalGroups.includes(ALL_AUTHENTICATED) && !finalGroups.includes(ALL_UNAUTHENTICATED)) finalGroups.push(ALL_AUTHENTICATED);
  } else if (!finalGroups.includes(ALL_UNAUTHENTICATED)) {
    finalGroups.push(ALL_UNAUTHENTICATED);
  }
  const user: UserInfo = { username, groups: finalGroups, ...(uids[0] ? { uid: uids[0] } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
  for (const k of Object.keys(headers)) if (k === USER || k === GROUP || k === UID || k.startsWith(EXTRA_PREFIX)) delete headers[k];
  state.user = user;
}
