// In-process benchmark of the RBAC authorizer's decision cost (no HTTP): R Roles and B RoleBindings spread
// over namespaces plus a bootstrap-like set of ClusterRoles and ClusterRoleBindings, stored in a MemoryBackend
// and read through the watch cache as the apiserver does; D decisions (allowed and not, users, groups and
// ServiceAccounts) each timed alone; prints p50/p99/max per decision and the index rebuild cost after a change.
// usage: npm run bench -- rbac-authz [--roles 1000] [--bindings 1000] [--decisions 100000] (--help lists the flags)
import { silentLogger } from '@kemu/base';
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';
import { MemoryBackend } from '@kemu/store';
import type { UserInfo } from '../packages/apiserver/src/authn/user.ts';
import { RbacAuthorizer } from '../packages/apiserver/src/authz/rbac.ts';
import { rbacLookupsFromCacher } from '../packages/apiserver/src/authz/rbac-cacher.ts';
import type { Attributes } from '../packages/apiserver/src/authz/types.ts';
import { encodeObject, objectKey } from '../packages/apiserver/src/storage.ts';
import { Cacher } from '../packages/apiserver/src/watch/cacher.ts';
import { atLeast, benchFlags } from './lib/flags.ts';

const flags = benchFlags(
  'rbac-authz',
  {
    roles: { type: 'int', default: 1000, usage: 'Roles (10 per namespace)' },
    bindings: { type: 'int', default: 1000, usage: 'RoleBindings (10 per namespace, each to a user, a group and a ServiceAccount)' },
    decisions: { type: 'int', default: 100_000, usage: 'authorization decisions timed' },
  },
  (f) => atLeast(f, 1, ['roles', 'bindings', 'decisions']),
);

const G = 'rbac.authorization.k8s.io';
const PER_NS = 10;
const namespaces = Math.max(1, Math.ceil(Math.max(flags.roles, flags.bindings) / PER_NS));
const backend = new MemoryBackend();
let lastRev = 0;
async function put(r: ResourceInfo, o: KubeObject): Promise<void> {
  lastRev = (await backend.create(objectKey(r, o.metadata.namespace, o.metadata.name ?? ''), encodeObject(o))).modRevision;
}
const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `${namespace ?? ''}-${name}`, creationTimestamp: '2026-12-03T00:00:00Z' });

// Bootstrap-like cluster policy: ~60 ClusterRoles and ClusterRoleBindings, three of them to system:authenticated.
const resources = ['pods', 'services', 'configmaps', 'secrets', 'deployments', 'replicasets', 'events', 'endpoints', 'leases', 'nodes'];
for (let i = 0; i < 60; i++) {
  await put(R.clusterroles, {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRole',
    metadata: meta(`system:controller:c${i}`),
    rules: resources.slice(0, 1 + (i % resources.length)).map((res) => ({ verbs: ['get', 'list', 'watch', 'update'], apiGroups: ['', 'apps'], resources: [res, `${res}/status`] })),
  });
  await put(R.clusterrolebindings, {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(`system:controller:c${i}`),
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: `system:controller:c${i}` },
    subjects: [i < 3 ? { kind: 'Group', apiGroup: G, name: 'system:authenticated' } : { kind: 'ServiceAccount', name: `c${i}`, namespace: 'kube-system' }],
  });
}
for (let i = 0; i < flags.roles; i++) {
  const ns = `ns${Math.floor(i / PER_NS) % namespaces}`;
  await put(R.roles, {
    apiVersion: `${G}/v1`,
    kind: 'Role',
    metadata: meta(`role${i % PER_NS}`, ns),
    rules: [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log', 'configmaps'] },
      { verbs: ['create', 'update', 'patch', 'delete'], apiGroups: ['apps'], resources: [`deployments${i % PER_NS}`] },
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: [`secret${i % PER_NS}`] },
    ],
  });
}
for (let i = 0; i < flags.bindings; i++) {
  const ns = `ns${Math.floor(i / PER_NS) % namespaces}`;
  await put(R.rolebindings, {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: meta(`binding${i % PER_NS}`, ns),
    roleRef: { apiGroup: G, kind: 'Role', name: `role${i % PER_NS}` },
    subjects: [
      { kind: 'User', apiGroup: G, name: `user${i}` },
      { kind: 'Group', apiGroup: G, name: `team${i % 50}` },
      { kind: 'ServiceAccount', name: `sa${i % PER_NS}` },
    ],
  });
}

const cacher = new Cacher({ backend, logger: silentLogger() });
await cacher.start();
await cacher.waitFor(lastRev);
const authz = new RbacAuthorizer(rbacLookupsFromCacher(cacher));

function attrs(i: number): Attributes {
  const b = i % flags.bindings;
  const ns = `ns${Math.floor(b / PER_NS) % namespaces}`;
  const kind = i % 4;
  const user: UserInfo =
    kind === 0
      ? { username: `user${b}`, groups: ['system:authenticated'] }
      : kind === 1
        ? { username: `someone${i}`, groups: [`team${b % 50}`, 'system:authenticated'] }
        : kind === 2
          ? { username: `system:serviceaccount:${ns}:sa${b % PER_NS}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] }
          : { username: `stranger${i}`, groups: ['system:authenticated'] };
  // Half the requests are allowed (get pods / named secret), half not (delete nodes, or another namespace's secret).
  const allowed = i % 2 === 0;
  return {
    user,
    verb: allowed ? 'get' : 'delete',
    resourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: allowed ? (i % 3 === 0 ? 'secrets' : 'pods') : 'nodes',
    subresource: '',
    namespace: allowed ? ns : '',
    name: allowed && i % 3 === 0 ? `secret${b % PER_NS}` : `x${i}`,
  };
}

authz.authorize(attrs(0)); // builds the index
const times = new Float64Array(flags.decisions);
let allowedCount = 0;
const t0 = performance.now();
for (let i = 0; i < flags.decisions; i++) {
  const a = attrs(i);
  const s = performance.now();
  const r = authz.authorize(a);
  times[i] = performance.now() - s;
  if (r.decision === 'allow') allowedCount++;
}
const wall = performance.now() - t0;
times.sort();
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0;

// The cost of the first decision after an RBAC object changed (the index is rebuilt then).
const rebuilds: number[] = [];
for (let i = 0; i < 21; i++) {
  await put(R.clusterrolebindings, { apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: meta(`churn${i}`), roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'system:controller:c0' }, subjects: [{ kind: 'User', apiGroup: G, name: `churn${i}` }] });
  await cacher.waitFor(lastRev);
  const s = performance.now();
  authz.authorize(attrs(i));
  rebuilds.push(performance.now() - s);
}
cacher.stop();
rebuilds.sort((a, b) => a - b);
const us = (ms: number) => +(ms * 1000).toFixed(1);
console.log(
  JSON.stringify({
    bench: 'rbac-authz',
    roles: flags.roles,
    roleBindings: flags.bindings,
    clusterRoleBindings: 60,
    decisions: flags.decisions,
    allowed: allowedCount,
    p50Us: us(pct(50)),
    p99Us: us(pct(99)),
    maxUs: us(times[times.length - 1] ?? 0),
    decisionsPerSecond: Math.round((flags.decisions / wall) * 1000),
    indexRebuildMedianMs: +(rebuilds[10] ?? 0).toFixed(2),
    indexRebuildMaxMs: +(rebuilds[20] ?? 0).toFixed(2),
  }),
);
const p99 = pct(99);
console.log(`p99 ${us(p99)} µs per decision: ${p99 <= 1 ? 'meets' : 'misses'} the goal (≤ 1 ms)`);
