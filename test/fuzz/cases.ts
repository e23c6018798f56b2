// A deterministic generator of bad requests against every resource in the table: each case says what the
// apiserver must answer (a 4xx Status, or at least never a 5xx) so one failing case names itself.
import { RESOURCES, type ResourceInfo } from '@kemu/api';

export interface BadRequest {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  contentType?: string;
  body?: string | Buffer;
  /** '4xx': must be rejected; 'no5xx': Kubernetes may accept it, but it must never be a 5xx or a hang. */
  expect: '4xx' | 'no5xx';
  /** Kubernetes itself answers this one with a plain-text 404 (no Status body). */
  plainBody?: boolean;
}

/** mulberry32: a tiny seeded PRNG so every run generates the same cases for one seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TARGET = 'fuzz-target';
export const NS = 'default';

export function basePath(r: ResourceInfo): string {
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return r.namespaced ? `${root}/namespaces/${NS}/${r.plural}` : `${root}/${r.plural}`;
}

function apiVersion(r: ResourceInfo): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** Minimal valid objects so patches and updates reach the patch/validation code instead of a 404. */
export function validObject(r: ResourceInfo, name = TARGET): Record<string, unknown> {
  const meta = { name, ...(r.namespaced ? { namespace: NS } : {}), labels: { app: name } };
  const base = { apiVersion: apiVersion(r), kind: r.kind, metadata: meta };
  const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
  switch (r.kind) {
    case 'Pod':
      return { ...base, spec: podSpec };
    case 'Deployment':
    case 'ReplicaSet':
      return { ...base, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec } } };
    case 'Service':
      return { ...base, spec: { ports: [{ port: 80 }], selector: { app: name } } };
    case 'EndpointSlice':
      return { ...base, addressType: 'IPv4', endpoints: [] };
    case 'PriorityClass':
      return { ...base, value: 10 };
    case 'Event':
      return r.group === ''
        ? { ...base, involvedObject: { kind: 'Pod', name: 'x', namespace: NS }, reason: 'R', message: 'm' }
        : { ...base, eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'x/y', reportingInstance: 'i', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'x', namespace: NS }, type: 'Normal' };
    case 'Lease':
      return { ...base, spec: { holderIdentity: 'h' } };
    // Reviews are never named or stored: their metadata must be empty.
    case 'SelfSubjectAccessReview':
      return { ...base, metadata: { labels: {} }, spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: NS } } };
    case 'SelfSubjectReview':
      return { ...base, metadata: { labels: {} } };
    case 'SelfSubjectRulesReview':
      return { ...base, metadata: { labels: {} }, spec: { namespace: NS } };
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview':
      return { ...base, metadata: { labels: {} }, spec: { user: 'jane', resourceAttributes: { verb: 'get', resource: 'pods', namespace: NS } } };
    case 'TokenReview':
      return { ...base, metadata: { labels: {} }, spec: { token: 'not-a-token' } };
    case 'Role':
    case 'ClusterRole':
      return { ...base, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return { ...base, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }] };
    case 'Job':
      return { ...base, spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } };
    case 'CronJob':
      return { ...base, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } } } } } };
    case 'DaemonSet':
      return { ...base, spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec } } };
    case 'StatefulSet':
      return { ...base, spec: { replicas: 1, serviceName: name, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec } } };
    case 'ControllerRevision':
      return { ...base, revision: 1, data: {} };
    case 'ReplicationController':
      return { ...base, spec: { replicas: 1, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: podSpec } } };
    case 'PodTemplate':
      return { ...base, template: { metadata: { labels: { app: name } }, spec: podSpec } };
    case 'LimitRange':
      return { ...base, spec: { limits: [{ type: 'Container', default: { cpu: '500m' } }] } };
    case 'ResourceQuota':
      return { ...base, spec: { hard: { pods: '100' } } };
    // The same spec is valid in autoscaling/v1 and v2.
    case 'HorizontalPodAutoscaler':
      return { ...base, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 } };
    case 'PodDisruptionBudget':
      return { ...base, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } };
    case 'PersistentVolume':
      return { ...base, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/fuzz' } } };
    case 'PersistentVolumeClaim':
      return { ...base, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    case 'StorageClass':
      return { ...base, provisioner: 'example.com/fuzz' };
    case 'CSIDriver':
      return { ...base, spec: {} };
    case 'CSINode':
      return { ...base, spec: { drivers: [] } };
    case 'VolumeAttachment':
      return { ...base, spec: { attacher: 'fuzz.example.com', nodeName: 'n', source: { persistentVolumeName: 'pv' } } };
    case 'Ingress':
      return { ...base, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } };
    case 'IngressClass':
      return { ...base, spec: { controller: 'example.com/fuzz' } };
    case 'NetworkPolicy':
      return { ...base, spec: { podSelector: {} } };
    case 'RuntimeClass':
      return { ...base, handler: 'runc' };
    // Valid but for the name, which must be <plural>.<group>: the shared target names cannot name a CRD.
    case 'CustomResourceDefinition':
      return {
        ...base,
        spec: {
          group: 'fuzz.example.com',
          scope: 'Namespaced',
          names: { plural: name, kind: 'Fuzz' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
        },
      };
    // Valid but for the name, which must be <version>.<group>.
    case 'APIService':
      return { ...base, spec: { group: 'fuzz.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } };
    case 'CertificateSigningRequest':
      return { ...base, spec: { request: FUZZ_CSR, signerName: 'example.com/fuzz', usages: ['client auth'] } };
    case 'ValidatingAdmissionPolicy':
      return { ...base, spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] } };
    case 'ValidatingAdmissionPolicyBinding':
      return { ...base, spec: { policyName: 'fuzz-target', validationActions: ['Deny'] } };
    default:
      return base;
  }
}

/** A P-256 CERTIFICATE REQUEST for CN=fuzz (openssl req -new), base64 as a CSR's spec.request. */
const FUZZ_CSR =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlISk1IRUNBUUF3RHpFTk1Bc0dBMVVFQXd3RVpuVjZlakJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSApBMElBQktoMVpTWmtkb1ZVUnljYVE0ZURJZFErSkZaemtkTlJ2WkwrS0M5MGRwdXRwNG9WWDJTY0Z0dmZsS01uCjluWVdvMVV6YUVFY3hmdjkxRElNckZWaTlMcWdBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUFLb3BHSVBCVGMKM3JoWGVnMlRTMzcvcEM1eURMSCtZUU05amY0UzU4dTEyQUloQUpoWXBzYk1TdDEyUEdtODlJZ0ZEN1p4Q0NMSAp2ZGt0OEc2KzZLaVBvRGhYCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';

const J = JSON.stringify;

/** 10,000 levels of nesting, built as text so the generator itself never recurses. */
export function deepJSON(levels: number, leaf = '1'): string {
  return '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
}
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** kemu's nesting limit (Kubernetes' decoder allows 10,000): up to it a body is handled, past it refused. */
const KEMU_MAX_NESTING = 500;
/** Depths (in containers, the root included) around kemu's limit, where the issue saw stack overflows, and Kubernetes' limit. */
const DEEP_LEVELS: Array<[number, '4xx' | 'no5xx']> = [
  [KEMU_MAX_NESTING, 'no5xx'],
  [KEMU_MAX_NESTING + 1, 'no5xx'],
  [3_000, 'no5xx'],
  [5_000, 'no5xx'],
  [10_000, 'no5xx'],
  [10_001, '4xx'],
];

/** Create/update bodies with a deep value in an unknown field (dropped by Kubernetes) and in spec. */
function deepBodies(ok: Record<string, unknown>): Array<[string, string, '4xx' | 'no5xx']> {
  const out: Array<[string, string, '4xx' | 'no5xx']> = [];
  for (const [levels, expect] of DEEP_LEVELS) {
    out.push([`deep: ${levels} levels in an unknown field`, J(ok).replace(/^\{/, `{"extra":${deepJSON(levels - 1)},`), expect]);
    out.push([`deep: ${levels} levels of arrays in an unknown field`, J(ok).replace(/^\{/, `{"extra":${deepArray(levels - 1)},`), expect]);
  }
  return out;
}

/** A block-style YAML mapping nested levels deep (each level one more space of indentation). */
function deepBlockYAML(levels: number): string {
  let s = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-target\nextra:\n';
  for (let i = 1; i < levels - 1; i++) s += `${' '.repeat(i)}a:\n`;
  return `${s}${' '.repeat(levels - 1)}b: 1\n`;
}

/** Patches of every kind nested around the limits, and a JSON patch that nests the object deeper than its body. */
function deepPatches(): Array<[string, string, string, '4xx' | 'no5xx']> {
  const out: Array<[string, string, string, '4xx' | 'no5xx']> = [];
  for (const [levels, expect] of DEEP_LEVELS) {
    out.push([`merge patch: deep ${levels} levels`, PATCH_MERGE, `{"extra":${deepJSON(levels - 1)}}`, expect]);
    out.push([`smp: deep ${levels} levels`, PATCH_SMP, `{"extra":${deepJSON(levels - 1)}}`, expect]);
    out.push([`smp: deep ${levels} levels under metadata`, PATCH_SMP, `{"metadata":{"annotations":${deepJSON(levels - 2, '"x"')}}}`, expect === '4xx' ? '4xx' : 'no5xx']);
    // Each operation is an object inside the list: the value sits two levels down.
    out.push([`json patch: deep ${levels} levels`, PATCH_JSON, `[{"op":"add","path":"/extra","value":${deepJSON(levels - 2)}}]`, expect]);
    out.push([`apply: deep ${levels} levels (JSON)`, APPLY, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-target"},"extra":${deepJSON(levels - 1)}}`, expect]);
  }
  for (const levels of [KEMU_MAX_NESTING, 900, 2_000]) out.push([`apply: deep ${levels} levels (block YAML)`, APPLY, deepBlockYAML(levels), 'no5xx']);
  // Three ops, each within the limit, that nest the object 3 x 400 levels deep.
  const path = (n: number) => `/extra${'/a'.repeat(n)}`;
  const grow = [0, 399, 798].map((n) => `{"op":"add","path":"${path(n)}","value":${deepJSON(400)}}`);
  out.push(['json patch: ops that nest the object past the limit', PATCH_JSON, `[${grow.join(',')}]`, 'no5xx']);
  // YAML aliases: each line one level deeper than the last, through an alias.
  const chain = Array.from({ length: 1_200 }, (_, i) => (i === 0 ? 'a0: &a0 [1]' : `a${i}: &a${i} [*a${i - 1}]`)).join('\n');
  out.push(['apply: alias chain 1,200 levels deep', APPLY, `${chain}\n`, 'no5xx']);
  return out;
}

const KINDS_WITH_SPEC = new Set(['Pod', 'Service', 'Node', 'Namespace', 'Deployment', 'ReplicaSet', 'Lease', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview', 'LocalSubjectAccessReview', 'TokenReview']);

/** Bodies for create/update whose metadata is wrong in one way each; all must be 4xx. */
function badObjectBodies(r: ResourceInfo, name: string): Array<[string, string | Buffer, '4xx' | 'no5xx']> {
  const ok = validObject(r, name);
  const withMeta = (m: Record<string, unknown>) => J({ ...ok, metadata: { ...(ok.metadata as object), ...m } });
  const out: Array<[string, string | Buffer, '4xx' | 'no5xx']> = [
    ['malformed json: truncated', '{"metadata": {"name": ', '4xx'],
    ['malformed json: trailing comma', '{"metadata":{"name":"x",},}', '4xx'],
    ['malformed json: single quotes', "{'metadata':{}}", '4xx'],
    ['json null', 'null', '4xx'],
    ['json array', '[]', '4xx'],
    ['json number', '42', '4xx'],
    ['json string', '"pod"', '4xx'],
    ['json true', 'true', '4xx'],
    ['metadata as string', J({ ...ok, metadata: 'x' }), '4xx'],
    ['metadata as array', J({ ...ok, metadata: [] }), '4xx'],
    ['metadata null (no name)', J({ ...ok, metadata: null }), '4xx'],
    ['name as number', withMeta({ name: 42 }), '4xx'],
    ['name as object', withMeta({ name: {} }), '4xx'],
    ['name as array', withMeta({ name: ['a'] }), '4xx'],
    ['name as null', withMeta({ name: null }), '4xx'],
    ['name with NUL byte', withMeta({ name: 'a\u0000b' }), '4xx'],
    ['name 1 MiB long', withMeta({ name: 'a'.repeat(1 << 20) }), '4xx'],
    ['name with slash', withMeta({ name: 'a/b' }), '4xx'],
    ['name ..', withMeta({ name: '..' }), '4xx'],
    ['generateName as number', J({ ...ok, metadata: { generateName: 5 } }), '4xx'],
    ['namespace as number', withMeta({ namespace: 7 }), '4xx'],
    ['labels as array', withMeta({ labels: ['a'] }), '4xx'],
    ['labels as string', withMeta({ labels: 'a=b' }), '4xx'],
    ['label value number', withMeta({ labels: { a: 1 } }), '4xx'],
    ['label value object', withMeta({ labels: { a: { b: 'c' } } }), '4xx'],
    ['label key invalid', withMeta({ labels: { '!!': 'x' } }), '4xx'],
    ['annotations as array', withMeta({ annotations: [] }), '4xx'],
    ['annotation value object', withMeta({ annotations: { a: {} } }), '4xx'],
    ['annotation value number', withMeta({ annotations: { a: 1 } }), '4xx'],
    ['annotation value null', withMeta({ annotations: { a: null } }), 'no5xx'],
    ['annotations over 256 KiB', withMeta({ annotations: { a: 'x'.repeat(300 * 1024) } }), '4xx'],
    ['resourceVersion as object', withMeta({ resourceVersion: {} }), '4xx'],
    ['resourceVersion as number', withMeta({ resourceVersion: 5 }), '4xx'],
    ['uid as array', withMeta({ uid: [] }), '4xx'],
    ['generation as string', withMeta({ generation: 'x' }), '4xx'],
    ['creationTimestamp as number', withMeta({ creationTimestamp: 5 }), '4xx'],
    ['creationTimestamp garbage', withMeta({ creationTimestamp: 'yesterday' }), '4xx'],
    ['deletionTimestamp garbage', withMeta({ deletionTimestamp: {} }), '4xx'],
    ['ownerReferences as string', withMeta({ ownerReferences: 'x' }), '4xx'],
    ['ownerReferences of numbers', withMeta({ ownerReferences: [1] }), '4xx'],
    ['ownerReferences empty entry', withMeta({ ownerReferences: [{}] }), '4xx'],
    ['ownerReferences uid number', withMeta({ ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 5 }] }), '4xx'],
    ['ownerReferences controller string', withMeta({ ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'u', controller: 'yes' }] }), '4xx'],
    ['finalizers as string', withMeta({ finalizers: 'x' }), '4xx'],
    ['finalizers of numbers', withMeta({ finalizers: [1] }), '4xx'],
    ['finalizers of objects', withMeta({ finalizers: [{}] }), '4xx'],
    ['managedFields as string', withMeta({ managedFields: 'x' }), '4xx'],
    ['kind as number', J({ ...ok, kind: 5 }), '4xx'],
    ['apiVersion as array', J({ ...ok, apiVersion: [] }), '4xx'],
    ['wrong kind', J({ ...ok, kind: 'Bogus' }), '4xx'],
    ['wrong apiVersion', J({ ...ok, apiVersion: 'bogus.example/v9' }), '4xx'],
    ['__proto__ key in metadata', withMeta({}).replace('"metadata":{', '"metadata":{"__proto__":{"polluted":"yes"},'), 'no5xx'],
    ['__proto__ at root', J(ok).replace('{', '{"__proto__":{"polluted":"yes"},'), 'no5xx'],
    ['constructor.prototype at root', J(ok).replace('{', '{"constructor":{"prototype":{"polluted":"yes"}},'), 'no5xx'],
    ['10,000-level nested object in spec', J(ok).replace(/^\{/, `{"spec":${deepJSON(10_000)},`), 'no5xx'],
    ['10,000-level nested object in labels', withMeta({}).replace('"labels":{', `"labels":{"x":${deepJSON(10_000)},`), '4xx'],
    ['10,000-level nested array in annotations', withMeta({}).replace('"metadata":{', `"metadata":{"annotations":{"a":${deepArray(10_000)}},`), '4xx'],
    ['100,000-level nested object', deepJSON(100_000), '4xx'],
    ...deepBodies(ok),
    ['invalid UTF-8 in name', Buffer.concat([Buffer.from('{"metadata":{"name":"a'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}')]), '4xx'],
    ['lone surrogate in name', '{"metadata":{"name":"\\ud800"}}', '4xx'],
    ['huge string field (2 MiB)', J({ ...ok, data: { k: 'x'.repeat(2 << 20) } }), 'no5xx'],
    // A kind whose Go type has no spec drops it as an unknown field (a Warning), as Kubernetes does.
    ['spec as string', J({ ...ok, spec: 'x' }), KINDS_WITH_SPEC.has(r.kind) ? '4xx' : 'no5xx'],
    ['spec as array', J({ ...ok, spec: [] }), 'no5xx'],
    ['status as number', J({ ...ok, status: 5 }), 'no5xx'],
  ];
  // Reviews are never named (metadata must be empty), so a missing name is valid for them.
  if (['SelfSubjectAccessReview', 'SelfSubjectReview', 'SubjectAccessReview', 'LocalSubjectAccessReview', 'TokenReview'].includes(r.kind)) {
    for (const c of out) if (c[0] === 'metadata null (no name)' || c[0] === 'name as null') c[2] = 'no5xx';
  }
  // Kubernetes never validates a SelfSubjectRulesReview's metadata (it answers with a fresh object), so only
  // the bodies its decoder refuses (wrong JSON types) are 4xx there.
  // RBAC names are path segments only (no '/', '%', '.', '..'), as in Kubernetes: any length, any character else.
  if (['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].includes(r.kind)) {
    for (const c of out) if (['name 1 MiB long', 'invalid UTF-8 in name', 'lone surrogate in name'].includes(c[0])) c[2] = 'no5xx';
  }
  // CSR names are anything Kubernetes' storage takes: one path segment (else 400 `Name parameter invalid`), any length.
  if (r.kind === 'CertificateSigningRequest') for (const c of out) if (['name 1 MiB long', 'invalid UTF-8 in name', 'lone surrogate in name'].includes(c[0])) c[2] = 'no5xx';
  // Nor a TokenReview's (its REST create looks at the token alone).
  if (r.kind === 'SelfSubjectRulesReview' || r.kind === 'TokenReview') {
    const accepted = new Set(['metadata null (no name)', 'name as null', 'name with NUL byte', 'name 1 MiB long', 'name with slash', 'name ..', 'label key invalid', 'annotations over 256 KiB', 'ownerReferences empty entry']);
    for (const c of out) if (accepted.has(c[0])) c[2] = 'no5xx';
  }
  return out;
}

const PATCH_JSON = 'application/json-patch+json';
const PATCH_MERGE = 'application/merge-patch+json';
const PATCH_SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

function badPatches(): Array<[string, string, string | Buffer, '4xx' | 'no5xx']> {
  return [
    ['json patch: not an array', PATCH_JSON, '{"op":"add"}', '4xx'],
    ['json patch: malformed', PATCH_JSON, '[{"op":', '4xx'],
    ['json patch: bad op', PATCH_JSON, J([{ op: 'frobnicate', path: '/metadata/labels/a', value: 'b' }]), '4xx'],
    ['json patch: op missing', PATCH_JSON, J([{ path: '/metadata/labels/a', value: 'b' }]), '4xx'],
    ['json patch: op as number', PATCH_JSON, J([{ op: 1, path: '/a' }]), '4xx'],
    ['json patch: path without slash', PATCH_JSON, J([{ op: 'add', path: 'metadata', value: 1 }]), '4xx'],
    ['json patch: path as number', PATCH_JSON, J([{ op: 'add', path: 5, value: 1 }]), '4xx'],
    ['json patch: entry is a string', PATCH_JSON, J(['add']), '4xx'],
    ['json patch: entry is null', PATCH_JSON, J([null]), '4xx'],
    ['json patch: add /metadata/__proto__', PATCH_JSON, J([{ op: 'add', path: '/metadata/__proto__', value: { polluted: 'yes' } }]), 'no5xx'],
    ['json patch: add /metadata/__proto__/polluted', PATCH_JSON, J([{ op: 'add', path: '/metadata/__proto__/polluted', value: 'yes' }]), 'no5xx'],
    ['json patch: add /constructor/prototype/polluted', PATCH_JSON, J([{ op: 'add', path: '/constructor/prototype/polluted', value: 'yes' }]), 'no5xx'],
    ['json patch: replace /__proto__', PATCH_JSON, J([{ op: 'replace', path: '/__proto__', value: { polluted: 'yes' } }]), 'no5xx'],
    ['json patch: copy from /__proto__', PATCH_JSON, J([{ op: 'copy', from: '/__proto__', path: '/metadata/annotations/p' }]), 'no5xx'],
    ['json patch: move from missing', PATCH_JSON, J([{ op: 'move', from: '/nope/nope', path: '/metadata/labels/x' }]), '4xx'],
    ['json patch: remove missing', PATCH_JSON, J([{ op: 'remove', path: '/nope/deeper' }]), '4xx'],
    ['json patch: failed test', PATCH_JSON, J([{ op: 'test', path: '/metadata/name', value: 'other' }]), '4xx'],
    ['json patch: array index out of range', PATCH_JSON, J([{ op: 'add', path: '/metadata/finalizers/99', value: 'x' }]), '4xx'],
    ['json patch: replace name with number', PATCH_JSON, J([{ op: 'replace', path: '/metadata/name', value: 5 }]), '4xx'],
    ['json patch: replace labels with array', PATCH_JSON, J([{ op: 'replace', path: '/metadata/labels', value: [] }]), '4xx'],
    ['json patch: finalizers as string', PATCH_JSON, J([{ op: 'add', path: '/metadata/finalizers', value: 'x' }]), '4xx'],
    ['json patch: replace root with null', PATCH_JSON, J([{ op: 'replace', path: '', value: null }]), '4xx'],
    ['json patch: 10,000-level value', PATCH_JSON, `[{"op":"add","path":"/metadata/annotations","value":{"a":${deepJSON(10_000, '"x"')}}}]`, '4xx'],
    ['merge patch: null', PATCH_MERGE, 'null', 'no5xx'],
    ['merge patch: array at root', PATCH_MERGE, '[]', '4xx'],
    ['merge patch: array of ops at root', PATCH_MERGE, J([{ op: 'add', path: '/a', value: 1 }]), '4xx'],
    ['merge patch: number', PATCH_MERGE, '7', '4xx'],
    ['merge patch: string', PATCH_MERGE, '"x"', '4xx'],
    ['merge patch: malformed', PATCH_MERGE, '{"metadata":', '4xx'],
    ['merge patch: labels as array', PATCH_MERGE, J({ metadata: { labels: ['x'] } }), '4xx'],
    ['merge patch: name to number', PATCH_MERGE, J({ metadata: { name: 3 } }), '4xx'],
    ['merge patch: resourceVersion object', PATCH_MERGE, J({ metadata: { resourceVersion: {} } }), '4xx'],
    ['merge patch: metadata null', PATCH_MERGE, J({ metadata: null }), 'no5xx'],
    ['merge patch: __proto__', PATCH_MERGE, '{"__proto__":{"polluted":"yes"},"metadata":{"__proto__":{"polluted":"yes"}}}', 'no5xx'],
    ['merge patch: constructor.prototype', PATCH_MERGE, '{"constructor":{"prototype":{"polluted":"yes"}}}', 'no5xx'],
    ['merge patch: 10,000 levels', PATCH_MERGE, `{"metadata":{"annotations":${deepJSON(10_000, '"x"')}}}`, '4xx'],
    ['smp: $patch bogus at root', PATCH_SMP, J({ $patch: 'bogus' }), '4xx'],
    ['smp: $patch as number', PATCH_SMP, J({ metadata: { $patch: 5 } }), '4xx'],
    ['smp: $retainKeys not a list', PATCH_SMP, J({ spec: { $retainKeys: 'x' } }), 'no5xx'],
    ['smp: $setElementOrder not a list', PATCH_SMP, J({ metadata: { '$setElementOrder/finalizers': 'x' } }), '4xx'],
    ['smp: $deleteFromPrimitiveList of number', PATCH_SMP, J({ metadata: { '$deleteFromPrimitiveList/finalizers': 5 } }), '4xx'],
    ['smp: $patch replace with garbage', PATCH_SMP, J({ metadata: { labels: { $patch: 'replace', a: 1 } } }), '4xx'],
    ['smp: array at root', PATCH_SMP, '[]', '4xx'],
    ['smp: null', PATCH_SMP, 'null', 'no5xx'],
    ['smp: malformed', PATCH_SMP, '{', '4xx'],
    ['smp: __proto__', PATCH_SMP, '{"__proto__":{"polluted":"yes"},"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}', 'no5xx'],
    ['smp: containers as object', PATCH_SMP, J({ spec: { containers: { name: 'c' } } }), 'no5xx'],
    ['apply: malformed yaml', APPLY, 'a: [\n  b: {', '4xx'],
    ['apply: yaml tab indentation', APPLY, 'metadata:\n\tname: x\n', '4xx'],
    ['apply: yaml scalar', APPLY, 'just a string', '4xx'],
    ['apply: yaml list', APPLY, '- a\n- b\n', '4xx'],
    ['apply: yaml anchors bomb', APPLY, 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n', '4xx'],
    ['apply: name as number', APPLY, 'apiVersion: v1\nkind: X\nmetadata:\n  name: 5\n', '4xx'],
    ...deepPatches(),
    ['wrong content type: text/plain', 'text/plain', '{}', '4xx'],
    ['wrong content type: xml', 'application/xml', '<a/>', '4xx'],
    ['wrong content type: garbage', '////;;;', '{}', '4xx'],
    ['wrong content type: form', 'application/x-www-form-urlencoded', 'a=b', '4xx'],
    ['protobuf garbage: no magic', 'application/vnd.kubernetes.protobuf', Buffer.from([0x08, 0x96, 0x01, 0xff, 0xff, 0xff]), '4xx'],
    ['protobuf garbage: magic + truncated varint', 'application/vnd.kubernetes.protobuf', Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])]), '4xx'],
  ];
}

/** Shared bad bodies for create/update, beyond the per-resource ones. */
function badContentTypes(): Array<[string, string, string | Buffer, '4xx' | 'no5xx']> {
  return [
    ['yaml: malformed', 'application/yaml', 'metadata: {name: [', '4xx'],
    ['yaml: scalar', 'application/yaml', 'hello', '4xx'],
    ['yaml: list', 'application/yaml', '- 1\n', '4xx'],
    ['yaml: duplicate keys', 'application/yaml', 'metadata:\n  name: a\n  name: b\n', '4xx'],
    ['yaml: name as map', 'application/yaml', 'metadata:\n  name: {a: b}\n', '4xx'],
    ['yaml: binary tag', 'application/yaml', 'metadata: !!binary AAAA\n', '4xx'],
    ['text/plain', 'text/plain', '{}', '4xx'],
    ['multipart', 'multipart/form-data; boundary=x', '--x\r\n\r\n--x--', '4xx'],
    ['json with utf-16 charset', 'application/json; charset=utf-16', Buffer.from('{"a":1}', 'utf16le'), '4xx'],
    ['protobuf garbage', 'application/vnd.kubernetes.protobuf', Buffer.from('k8s\0garbage\xff\xfe', 'latin1'), '4xx'],
    ['protobuf random bytes', 'application/vnd.kubernetes.protobuf', Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff)), '4xx'],
    ['empty json body', 'application/json', '', '4xx'],
  ];
}

const BAD_LIST_QUERIES: Array<[string, '4xx' | 'no5xx']> = [
  ['limit=-1', 'no5xx'],
  ['limit=abc', '4xx'],
  ['limit=1e309', '4xx'],
  ['limit=99999999999999999999999', 'no5xx'],
  ['continue=garbage', '4xx'],
  ['limit=1&continue=%00%ff', '4xx'],
  ['continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiLyJ9', '4xx'],
  ['resourceVersion=abc', '4xx'],
  ['resourceVersion=-1', '4xx'],
  ['resourceVersion=0&resourceVersionMatch=Bogus', '4xx'],
  ['resourceVersionMatch=Exact', '4xx'],
  ['timeoutSeconds=-5', 'no5xx'],
  ['timeoutSeconds=abc', '4xx'],
  ['labelSelector=((', '4xx'],
  ['labelSelector=a%20in%20(b', '4xx'],
  ['labelSelector=!!!', '4xx'],
  ['fieldSelector=a=b=c', '4xx'],
  ['fieldSelector=metadata.name==x==y', '4xx'],
  ['fieldSelector=bogus.field=x', '4xx'],
  // Kubernetes reads any boolean but "0" or "false" as true: watch=maybe is a watch (ended by timeoutSeconds).
  ['watch=maybe&timeoutSeconds=1', 'no5xx'],
  ['allowWatchBookmarks=maybe&watch=maybe&timeoutSeconds=1', 'no5xx'],
  ['sendInitialEvents=maybe', '4xx'],
  ['labelSelector=' + 'a'.repeat(70_000), '4xx'],
  ['limit=5&limit=abc', 'no5xx'],
  ['%zz=1', 'no5xx'],
];

const BAD_GET_QUERIES: Array<[string, '4xx' | 'no5xx']> = [
  ['resourceVersion=abc', 'no5xx'],
  ['resourceVersion=%00', 'no5xx'],
  ['pretty=maybe', 'no5xx'],
  ['%zz', 'no5xx'],
];

const BAD_WATCH_QUERIES: Array<[string, '4xx' | 'no5xx']> = [
  ['watch=true&resourceVersion=abc', '4xx'],
  ['watch=true&resourceVersion=-5', '4xx'],
  ['watch=true&labelSelector=((', '4xx'],
  ['watch=true&fieldSelector=a=b=c', '4xx'],
  ['watch=true&timeoutSeconds=abc', '4xx'],
  ['watch=1&fieldSelector=bogus=x', '4xx'],
  ['watch=true&sendInitialEvents=true', '4xx'],
  ['watch=true&sendInitialEvents=true&resourceVersionMatch=Exact', '4xx'],
];

function badDeleteOptions(): Array<[string, string | undefined, string, '4xx' | 'no5xx']> {
  return [
    ['gracePeriodSeconds string', 'application/json', J({ gracePeriodSeconds: 'x' }), '4xx'],
    ['gracePeriodSeconds object', 'application/json', J({ gracePeriodSeconds: {} }), '4xx'],
    ['propagationPolicy number', 'application/json', J({ propagationPolicy: 5 }), '4xx'],
    ['propagationPolicy bogus', 'application/json', J({ propagationPolicy: 'Sideways' }), '4xx'],
    ['preconditions string', 'application/json', J({ preconditions: 'x' }), '4xx'],
    ['preconditions.uid number', 'application/json', J({ preconditions: { uid: 5 } }), '4xx'],
    ['preconditions.resourceVersion object', 'application/json', J({ preconditions: { resourceVersion: {} } }), '4xx'],
    ['dryRun as string', 'application/json', J({ dryRun: 'All' }), '4xx'],
    ['dryRun bogus value', 'application/json', J({ dryRun: ['Sometimes'] }), '4xx'],
    ['orphanDependents string', 'application/json', J({ orphanDependents: 'yes' }), '4xx'],
    ['body array', 'application/json', '[]', '4xx'],
    ['body number', 'application/json', '5', '4xx'],
    ['body malformed', 'application/json', '{"gracePeriodSeconds":', '4xx'],
    ['wrong kind', 'application/json', J({ kind: 'Pod', apiVersion: 'v1' }), 'no5xx'],
    ['content type xml', 'application/xml', '<x/>', '4xx'],
  ];
}

const BAD_DELETE_QUERIES: Array<[string, '4xx' | 'no5xx']> = [
  ['gracePeriodSeconds=abc', '4xx'],
  ['propagationPolicy=Bogus', '4xx'],
  ['dryRun=Sometimes', '4xx'],
  // As force=maybe: orphanDependents=true to Kubernetes.
  ['orphanDependents=maybe', 'no5xx'],
];

/** Every case for one resource: create, update, patch, delete, list, get, watch and each subresource. */
export function casesFor(r: ResourceInfo): BadRequest[] {
  const coll = basePath(r);
  const item = `${coll}/${TARGET}`;
  const out: BadRequest[] = [];
  const add = (c: BadRequest) => out.push(c);
  const tag = (s: string) => `${r.group || 'core'}/${r.plural}: ${s}`;

  if (r.verbs.includes('create')) {
    for (const [n, body, expect] of badObjectBodies(r, 'fuzz-new')) add({ name: tag(`POST ${n}`), method: 'POST', url: coll, contentType: 'application/json', body, expect });
    for (const [n, ct, body, expect] of badContentTypes()) add({ name: tag(`POST ${n}`), method: 'POST', url: coll, contentType: ct, body, expect });
    add({ name: tag('POST dryRun=Bogus'), method: 'POST', url: `${coll}?dryRun=Bogus`, contentType: 'application/json', body: J(validObject(r, 'fuzz-dry')), expect: '4xx' });
    add({ name: tag('POST fieldValidation=Bogus'), method: 'POST', url: `${coll}?fieldValidation=Bogus`, contentType: 'application/json', body: J(validObject(r, 'fuzz-fv')), expect: '4xx' });
    add({ name: tag('POST fieldManager too long'), method: 'POST', url: `${coll}?fieldManager=${'m'.repeat(200)}`, contentType: 'application/json', body: J(validObject(r, 'fuzz-fm')), expect: '4xx' });
  } else {
    add({ name: tag('POST on a resource without create'), method: 'POST', url: coll, contentType: 'application/json', body: '{}', expect: '4xx' });
  }
  if (r.verbs.includes('update')) {
    for (const [n, body, expect] of badObjectBodies(r, TARGET)) add({ name: tag(`PUT ${n}`), method: 'PUT', url: item, contentType: 'application/json', body, expect });
    add({ name: tag('PUT name mismatch'), method: 'PUT', url: item, contentType: 'application/json', body: J(validObject(r, 'other-name')), expect: '4xx' });
  }
  if (r.verbs.includes('patch')) {
    for (const [n, ct, body, expect] of badPatches()) add({ name: tag(`PATCH ${n}`), method: 'PATCH', url: n.startsWith('apply') ? `${item}?fieldManager=fuzz` : item, contentType: ct, body, expect });
    add({ name: tag('PATCH apply without fieldManager'), method: 'PATCH', url: item, contentType: APPLY, body: J(validObject(r)), expect: '4xx' });
    // Kubernetes reads a query boolean as false only for "0" or "false": force=maybe is force=true.
    add({ name: tag('PATCH apply force=maybe'), method: 'PATCH', url: `${item}?fieldManager=f&force=maybe`, contentType: APPLY, body: J(validObject(r)), expect: 'no5xx' });
  }
  if (r.verbs.includes('delete')) {
    for (const [n, ct, body, expect] of badDeleteOptions()) add({ name: tag(`DELETE options ${n}`), method: 'DELETE', url: item, ...(ct ? { contentType: ct } : {}), body, expect });
    for (const [q, expect] of BAD_DELETE_QUERIES) add({ name: tag(`DELETE ?${q}`), method: 'DELETE', url: `${item}?${q}`, expect });
  }
  if (r.verbs.includes('deletecollection')) {
    for (const [q, expect] of [['labelSelector=((', '4xx'], ['fieldSelector=a=b=c', '4xx'], ['gracePeriodSeconds=abc', '4xx']] as const) add({ name: tag(`DELETE collection ?${q}`), method: 'DELETE', url: `${coll}?${q}`, expect });
    add({ name: tag('DELETE collection body malformed'), method: 'DELETE', url: `${coll}?labelSelector=fuzz-none`, contentType: 'application/json', body: '{', expect: '4xx' });
  }
  if (r.verbs.includes('list')) for (const [q, expect] of BAD_LIST_QUERIES) add({ name: tag(`LIST ?${q}`), method: 'GET', url: `${coll}?${q}`, expect });
  if (r.verbs.includes('get')) for (const [q, expect] of BAD_GET_QUERIES) add({ name: tag(`GET ?${q}`), method: 'GET', url: `${item}?${q}`, expect });
  if (r.verbs.includes('watch')) {
    for (const [q, expect] of BAD_WATCH_QUERIES) add({ name: tag(`WATCH ?${q}`), method: 'GET', url: `${coll}?${q}`, expect });
    const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    add({ name: tag('legacy /watch/ path with bad selector'), method: 'GET', url: `${root}/watch/${r.namespaced ? `namespaces/${NS}/` : ''}${r.plural}?labelSelector=((`, expect: '4xx' });
  }
  // Verbs the table does not grant must be refused (405/404), never routed into a handler that crashes.
  for (const m of ['PUT', 'PATCH'] as const) add({ name: tag(`${m} on the collection`), method: m, url: coll, contentType: 'application/merge-patch+json', body: '{}', expect: '4xx' });
  add({ name: tag('POST on an item'), method: 'POST', url: item, contentType: 'application/json', body: '{}', expect: '4xx' });
  add({ name: tag('unknown subresource'), method: 'GET', url: `${item}/bogus`, expect: '4xx' });
  add({ name: tag('item name with NUL'), method: 'GET', url: `${coll}/a%00b`, expect: '4xx' });
  // inject() resolves ".." and "%2e%2e" as curl does, so the server sees the parent path; dot segments sent
  // as-is are covered over a socket by test/apiserver/dot-segments.test.ts.
  add({ name: tag('item name ..'), method: 'GET', url: `${coll}/..`, expect: 'no5xx' });
  add({ name: tag('item name %2e%2e%2fsecrets'), method: 'GET', url: `${coll}/%2e%2e%2fsecrets`, expect: '4xx' });
  add({ name: tag('item name 10,000 chars'), method: 'GET', url: `${coll}/${'a'.repeat(10_000)}`, expect: '4xx' });
  add({ name: tag('item name invalid percent-encoding'), method: 'GET', url: `${coll}/%zz`, expect: '4xx' });

  for (const sub of r.subresources) {
    const su = `${item}/${sub.name}`;
    if (sub.verbs.includes('update')) {
      // /status and /finalize keep the stored metadata (only status or spec.finalizers change): bad metadata values
      // there are not an error, only undecodable ones are.
      for (const [n, body, expect] of badObjectBodies(r, TARGET).filter((_, i) => i % 3 === 0)) add({ name: tag(`PUT /${sub.name} ${n}`), method: 'PUT', url: su, contentType: 'application/json', body, expect: (sub.name === 'status' || sub.name === 'finalize') && expect === '4xx' && !/json|name|metadata|kind|apiVersion|UTF|surrogate|nested/.test(n) ? 'no5xx' : expect });
    }
    if (sub.verbs.includes('patch')) for (const [n, ct, body, expect] of badPatches().filter((_, i) => i % 2 === 0)) add({ name: tag(`PATCH /${sub.name} ${n}`), method: 'PATCH', url: n.startsWith('apply') ? `${su}?fieldManager=fuzz` : su, contentType: ct, body, expect });
    if (sub.verbs.includes('create')) {
      for (const [n, body] of [
        ['malformed', '{'],
        ['array', '[]'],
        ['missing target', J({ apiVersion: 'v1', kind: sub.kind, metadata: { name: TARGET } })],
        ['target as string', J({ apiVersion: 'v1', kind: sub.kind, metadata: { name: TARGET }, target: 'node-1' })],
        ['target without name', J({ apiVersion: 'v1', kind: sub.kind, metadata: { name: TARGET }, target: { kind: 'Node' } })],
        ['target name number', J({ apiVersion: 'v1', kind: sub.kind, metadata: { name: TARGET }, target: { kind: 'Node', name: 5 } })],
        ['deleteOptions string', J({ apiVersion: 'policy/v1', kind: sub.kind, metadata: { name: TARGET }, deleteOptions: 'x' })],
        ['name mismatch', J({ apiVersion: 'v1', kind: sub.kind, metadata: { name: 'someone-else' }, target: { kind: 'Node', name: 'n' } })],
      ] as const) add({ name: tag(`POST /${sub.name} ${n}`), method: 'POST', url: su, contentType: 'application/json', body, expect: '4xx' });
    }
    if (sub.name === 'scale') {
      for (const [n, spec] of [
        ['replicas as string', { replicas: '3' }],
        ['replicas negative', { replicas: -1 }],
        ['replicas fractional', { replicas: 1.5 }],
        ['replicas huge', { replicas: 1e20 }],
        ['replicas object', { replicas: {} }],
        ['spec as array', []],
      ] as const) add({ name: tag(`PUT /scale ${n}`), method: 'PUT', url: su, contentType: 'application/json', body: J({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: TARGET, namespace: NS }, spec }), expect: '4xx' });
      add({ name: tag('PATCH /scale replicas string'), method: 'PATCH', url: su, contentType: PATCH_MERGE, body: J({ spec: { replicas: 'many' } }), expect: '4xx' });
    }
    if (sub.name === 'log') {
      for (const q of ['tailLines=abc', 'sinceSeconds=-1', 'limitBytes=abc', 'follow=maybe', 'container=%00']) add({ name: tag(`GET /log ?${q}`), method: 'GET', url: `${su}?${q}`, expect: 'no5xx' });
    }
  }
  return out;
}

/** Requests that belong to no resource: traversal, unknown groups and versions, overlong paths. */
export function pathCases(): BadRequest[] {
  const get = (name: string, url: string, expect: '4xx' | 'no5xx' = '4xx'): BadRequest => ({ name, method: 'GET', url, expect });
  return [
    get('traversal ../pods', '/api/v1/namespaces/../pods', 'no5xx'),
    get('traversal encoded', '/api/v1/namespaces/%2e%2e/pods', 'no5xx'),
    get('traversal encoded slash', '/api/v1/namespaces/default%2f..%2fkube-system/pods', 'no5xx'),
    get('traversal into /apis', '/api/v1/../../apis/apps/v1/deployments', 'no5xx'),
    get('double slashes', '//api//v1//pods', 'no5xx'),
    get('backslashes', '/api\\v1\\pods', 'no5xx'),
    get('overlong path 100 KB', `/api/v1/namespaces/${'n'.repeat(100_000)}/pods`, 'no5xx'),
    get('very many segments', `/api/v1/${'a/'.repeat(5_000)}`),
    get('unknown group', '/apis/bogus.example.com/v1/widgets'),
    get('unknown version of a known group', '/apis/apps/v9/deployments'),
    get('unknown core version', '/api/v2/pods'),
    get('unknown core resource', '/api/v1/widgets'),
    get('group without version', '/apis/apps//deployments'),
    get('namespace name invalid', '/api/v1/namespaces/UPPER_case!/pods', 'no5xx'),
    get('namespace name NUL', '/api/v1/namespaces/a%00b/configmaps', 'no5xx'),
    get('invalid percent-encoding in path', '/api/v1/namespaces/%e0%a4%a/pods'),
    get('invalid UTF-8 in path', '/api/v1/namespaces/%ff%fe/pods'),
    get('cluster-scoped under a namespace', '/api/v1/namespaces/default/nodes'),
    get('namespaced without namespace segment value', '/api/v1/namespaces//pods'),
    get('watch of an unknown resource', '/api/v1/watch/widgets'),
    { ...get('readyz bad subcheck', '/readyz/bogus'), plainBody: true },
    get('openapi unknown gv', '/openapi/v3/apis/bogus/v1'),
    { name: 'POST to /api', method: 'POST', url: '/api', contentType: 'application/json', body: '{}', expect: '4xx' },
    { name: 'DELETE /version', method: 'DELETE', url: '/version', expect: '4xx' },
    { name: 'PATCH to discovery', method: 'PATCH', url: '/apis/apps/v1', contentType: PATCH_MERGE, body: '{}', expect: '4xx' },
  ];
}

/** Random mutations of a valid body: truncation, byte flips, one metadata field set to a random wrong type. */
export function randomCases(seed: number, count: number): BadRequest[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const wrongValues: unknown[] = [42, -1, 1.5, true, null, [], [1, 'a'], {}, { a: { b: [] } }, '', '\u0000', 'x'.repeat(5000)];
  const fields = ['name', 'generateName', 'namespace', 'labels', 'annotations', 'resourceVersion', 'uid', 'generation', 'ownerReferences', 'finalizers', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'];
  const writable = RESOURCES.filter((r) => r.verbs.includes('create'));
  const out: BadRequest[] = [];
  for (let i = 0; i < count; i++) {
    const r = pick(writable);
    const obj = validObject(r, `fuzz-rand-${i}`);
    const mode = Math.floor(rand() * 3);
    let body: string | Buffer;
    let what: string;
    if (mode === 0) {
      const text = JSON.stringify(obj);
      const cut = 1 + Math.floor(rand() * (text.length - 2));
      body = text.slice(0, cut);
      what = `truncated at ${cut}`;
    } else if (mode === 1) {
      const buf = Buffer.from(JSON.stringify(obj));
      const at = Math.floor(rand() * buf.length);
      buf[at] = Math.floor(rand() * 256);
      body = buf;
      what = `byte ${at} flipped`;
    } else {
      const f = pick(fields);
      const v = pick(wrongValues);
      body = JSON.stringify({ ...obj, metadata: { ...(obj.metadata as object), [f]: v } });
      what = `metadata.${f}=${JSON.stringify(v).slice(0, 20)}`;
    }
    // A byte flip can land in a string and still be valid; only a crash or a 5xx is a failure there.
    out.push({ name: `random #${i} ${r.plural}: ${what}`, method: pick(['POST', 'PUT'] as const) === 'POST' ? 'POST' : 'PUT', url: basePath(r), contentType: 'application/json', body, expect: 'no5xx' });
    const last = out[out.length - 1] as BadRequest;
    if (last.method === 'PUT') last.url = `${basePath(r)}/${TARGET}`;
  }
  return out;
}
