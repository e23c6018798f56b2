// kube-apiserver's PostStartHook "rbac/bootstrap-roles": creates the bootstrap policy's missing roles and
// bindings and unions missing rules/subjects into existing ones (reconcile in union mode; objects annotated
// autoupdate=false are left alone). Replicas run it concurrently: creates race to AlreadyExists (then the
// object is reconciled instead), updates are read-modify-write with retries, and every write is a union, so
// the result does not depend on who wins.
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { Logger } from '@kemu/base';
import { APISERVER_USER } from '../authn/user.ts';
import { bootstrapPolicy, RBAC_GROUP } from '../authz/bootstrap-policy/index.ts';
import { deleteRequest } from '../registry/delete-plan.ts';
import type { Registry, WriteOptions } from '../registry/registry.ts';
import { reconcileBinding, reconcileRole, type BindingLike, type ReconcileResult, type RoleLike } from './rbac-reconcile.ts';

export const RBAC_BOOTSTRAP_HOOK = 'rbac/bootstrap-roles';

export interface EnsureBootstrapPolicyOptions {
  /** Pause between whole passes after an error (Kubernetes polls every second). */
  retryIntervalMs?: number;
  /** Give up after this long (Kubernetes: 30 s, then the hook fails and the server exits). */
  timeoutMs?: number;
}

type Kind = 'clusterrole' | 'clusterrolebinding' | 'role' | 'rolebinding';
type Obj = RoleLike | BindingLike;

interface Item {
  kind: Kind;
  resource: ResourceInfo;
  expected: Obj;
}

// The apiserver writes its own policy as its loopback identity (system:apiserver in system:masters).
const WRITE: WriteOptions = { userInfo: APISERVER_USER };
// An object that keeps appearing and disappearing under us: give up this pass after a few tries.
const MAX_ATTEMPTS = 3;

const is = (e: unknown, reason: string): boolean => e instanceof StatusError && e.reason === reason;

function items(): Item[] {
  const p = bootstrapPolicy();
  return [
    ...p.clusterRoles.map((expected): Item => ({ kind: 'clusterrole', resource: R.clusterroles, expected })),
    ...p.clusterRoleBindings.map((expected): Item => ({ kind: 'clusterrolebinding', resource: R.clusterrolebindings, expected })),
    ...p.roles.map((expected): Item => ({ kind: 'role', resource: R.roles, expected })),
    ...p.roleBindings.map((expected): Item => ({ kind: 'rolebinding', resource: R.rolebindings, expected })),
  ];
}

function reconcile(kind: Kind, existing: Obj, expected: Obj): ReconcileResult<Obj> {
  return kind === 'clusterrole' || kind === 'role'
    ? reconcileRole(existing as RoleLike, expected as RoleLike)
    : reconcileBinding(existing as BindingLike, expected as BindingLike);
}

/** How Kubernetes names the object in its log lines: clusterrole.rbac.authorization.k8s.io/admin (in ns). */
function describe(item: Item): string {
  const { name, namespace } = item.expected.metadata;
  return `${item.kind}.${RBAC_GROUP}/${name}${namespace ? ` in ${namespace}` : ''}`;
}

async function ensureOne(registry: Registry, logger: Logger, item: Item): Promise<void> {
  const { name, namespace } = item.expected.metadata;
  const ns = namespace;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let existing: Obj;
    try {
      existing = (await registry.get(item.resource, ns, name)) as Obj;
    } catch (e) {
      if (!is(e, 'NotFound')) throw e;
      try {
        await registry.create(item.resource, structuredClone(item.expected) as KubeObject, WRITE);
        logger.debug({}, `created ${describe(item)}`);
        return;
      } catch (err) {
        if (is(err, 'AlreadyExists')) continue; // another replica won: reconcile what it made
        throw err;
      }
    }
    const result = reconcile(item.kind, existing, item.expected);
    if (!result.update) return;
    const what = describeMissing(result);
    if (result.protected) {
      logger.warn({}, `skipped reconcile-protected ${describe(item)} with missing ${what}`);
      return;
    }
    try {
      if (result.recreate) {
        // roleRef is immutable: the binding is replaced.
        await registry.delete(item.resource, ns, name, deleteRequest(item.resource, {}), WRITE);
        const fresh = structuredClone(result.update) as KubeObject;
        delete fresh.metadata.resourceVersion;
        delete fresh.metadata.uid;
        delete fresh.metadata.creationTimestamp;
        await registry.create(item.resource, fresh, WRITE);
        logger.debug({}, `recreated ${describe(item)}`);
        return;
      }
      // Recomputed on the current object at each try, so a concurrent replica's additions are kept.
      await registry.guaranteedUpdate(item.resource, ns, name, (cur) => (reconcile(item.kind, cur as Obj, item.expected).update ?? cur) as KubeObject, WRITE);
      logger.debug({}, `updated ${describe(item)} with additional ${what}`);
      return;
    } catch (e) {
      if (is(e, 'NotFound') || is(e, 'AlreadyExists') || is(e, 'Conflict')) continue;
      throw e;
    }
  }
  throw new Error(`${describe(item)}: exceeded maximum attempts`);
}

function describeMissing(r: ReconcileResult<Obj>): string {
  if (r.missingSubjects.length) return `subjects: ${JSON.stringify(r.missingSubjects)}`;
  return `permissions: ${JSON.stringify(r.missingRules)}`;
}

async function ensureAll(registry: Registry, logger: Logger): Promise<void> {
  // Roles before bindings, cluster-scoped before namespaced, as Kubernetes' hook.
  for (const item of items()) await ensureOne(registry, logger, item);
}

/**
 * Creates and reconciles the RBAC bootstrap policy; resolves once everything is in place. Errors (the
 * store not ready, kube-system not there yet) are retried until timeoutMs, then thrown.
 */
export async function ensureBootstrapPolicy(registry: Registry, logger: Logger, opts: EnsureBootstrapPolicyOptions = {}): Promise<void> {
  const interval = opts.retryIntervalMs ?? 1000;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      await ensureAll(registry, logger);
      logger.info({ hook: RBAC_BOOTSTRAP_HOOK }, 'RBAC bootstrap policy reconciled');
      return;
    } catch (e) {
      if (Date.now() + interval > deadline) throw new Error(`unable to initialize roles: ${String(e)}`, { cause: e });
      logger.warn({ err: String(e) }, 'unable to initialize clusterroles');
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }
}

/** A /healthz, /livez, /readyz check "poststarthook/rbac/bootstrap-roles": ok once the hook has finished. */
export function bootstrapPolicyCheck(): { check: () => boolean; done: () => void } {
  let finished = false;
  return { check: () => finished, done: () => void (finished = true) };
}

