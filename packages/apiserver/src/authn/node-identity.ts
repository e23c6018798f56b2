// Which node a user speaks for, as Kubernetes' nodeidentifier.NodeIdentity: a user named
// `system:node:<name>` in the `system:nodes` group. The Node authorizer and the NodeRestriction admission
// plugin both decide by it.
import { NODE_USER_PREFIX, NODES_GROUP, type UserInfo } from './user.ts';

/**
 * `{ nodeName }` for a node user (the name may be '' — a node Kubernetes cannot identify, which the Node
 * authorizer refuses by name), undefined for anyone else.
 */
export function nodeIdentity(user: UserInfo | undefined): { nodeName: string } | undefined {
  if (!user || !user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return { nodeName: user.username.slice(NODE_USER_PREFIX.length) };
}

/** The node a user speaks for, or undefined for anyone else (and for a node user with no name). */
export function nodeNameOf(user: UserInfo | undefined): string | undefined {
  const id = nodeIdentity(user);
  return id && id.nodeName !== '' ? id.nodeName : undefined;
}
