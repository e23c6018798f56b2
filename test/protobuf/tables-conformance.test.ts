// Every hand-written field table, walked from each top-level kind, agrees with the descriptors kubectl
// 1.32 itself registers: same field numbers, names, scalar types, repetition, maps and nested messages.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../packages/apiserver/src/protobuf/schema.ts';
import * as apps from '../../packages/apiserver/src/protobuf/tables/apps-and-others.ts';
import * as core from '../../packages/apiserver/src/protobuf/tables/core.ts';
import * as coreEE from '../../packages/apiserver/src/protobuf/tables/core-endpoints-events.ts';
import * as discoveryEvents from '../../packages/apiserver/src/protobuf/tables/discovery-events.ts';
import * as meta from '../../packages/apiserver/src/protobuf/tables/meta.ts';
import * as node from '../../packages/apiserver/src/protobuf/tables/node.ts';
import * as rbac from '../../packages/apiserver/src/protobuf/tables/rbac.ts';
import * as certificates from '../../packages/apiserver/src/protobuf/tables/certificates.ts';
import * as reviews from '../../packages/apiserver/src/protobuf/tables/reviews.ts';
import { loadDescriptors, type ProtoField } from './descriptors.ts';
import { findKubectl132 } from './kubectl-bin.ts';

const CORE = 'k8s.io.api.core.v1';
const ROOTS: [string, Message, string][] = [
  ['Namespace', core.Namespace, `${CORE}.Namespace`],
  ['ConfigMap', core.ConfigMap, `${CORE}.ConfigMap`],
  ['Secret', core.Secret, `${CORE}.Secret`],
  ['ServiceAccount', core.ServiceAccount, `${CORE}.ServiceAccount`],
  ['Service', core.Service, `${CORE}.Service`],
  ['Pod', core.Pod, `${CORE}.Pod`],
  ['Binding', core.Binding, `${CORE}.Binding`],
  ['Node', node.Node, `${CORE}.Node`],
  ['Endpoints', coreEE.Endpoints, `${CORE}.Endpoints`],
  ['Event', coreEE.Event, `${CORE}.Event`],
  ['EndpointSlice', discoveryEvents.EndpointSlice, 'k8s.io.api.discovery.v1.EndpointSlice'],
  ['events/v1 Event', discoveryEvents.Event, 'k8s.io.api.events.v1.Event'],
  ['Deployment', apps.Deployment, 'k8s.io.api.apps.v1.Deployment'],
  ['ReplicaSet', apps.ReplicaSet, 'k8s.io.api.apps.v1.ReplicaSet'],
  ['Eviction', apps.Eviction, 'k8s.io.api.policy.v1.Eviction'],
  ['Scale', apps.Scale, 'k8s.io.api.autoscaling.v1.Scale'],
  ['PriorityClass', apps.PriorityClass, 'k8s.io.api.scheduling.v1.PriorityClass'],
  ['Lease', apps.Lease, 'k8s.io.api.coordination.v1.Lease'],
  ['SelfSubjectAccessReview', reviews.SelfSubjectAccessReview, 'k8s.io.api.authorization.v1.SelfSubjectAccessReview'],
  ['SelfSubjectRulesReview', reviews.SelfSubjectRulesReview, 'k8s.io.api.authorization.v1.SelfSubjectRulesReview'],
  ['SelfSubjectReview', reviews.SelfSubjectReview, 'k8s.io.api.authentication.v1.SelfSubjectReview'],
  ['Role', rbac.Role, 'k8s.io.api.rbac.v1.Role'],
  ['ClusterRole', rbac.ClusterRole, 'k8s.io.api.rbac.v1.ClusterRole'],
  ['RoleBinding', rbac.RoleBinding, 'k8s.io.api.rbac.v1.RoleBinding'],
  ['ClusterRoleBinding', rbac.ClusterRoleBinding, 'k8s.io.api.rbac.v1.ClusterRoleBinding'],
  // kubectl 1.32's binary registers no certificates/v1 descriptor; v1beta1's CSR has the same fields and numbers.
  ['CertificateSigningRequest', certificates.CertificateSigningRequest, 'k8s.io.api.certificates.v1beta1.CertificateSigningRequest'],
  ['DeleteOptions', meta.DeleteOptions, 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
];

const kubectl132 = findKubectl132();

describe.skipIf(!kubectl132)('field tables match kubectl 1.32 descriptors', () => {
  const descriptors = kubectl132 ? loadDescriptors(kubectl132) : new Map<string, Map<number, ProtoField>>();

  function problems(table: Message, protoName: string, seen: Set<string>, out: string[]): void {
    const key = protoName;
    if (seen.has(key)) return;
    seen.add(key);
    const d = descriptors.get(protoName);
    if (!d) {
      out.push(`${protoName}: no descriptor`);
      return;
    }
    for (const [num, f] of Object.entries(table.fields)) {
      const p = d.get(Number(num));
      const at = `${protoName} #${num} ${f.name}`;
      if (!p) {
        out.push(`${at}: not in the descriptor`);
        continue;
      }
      if (p.name.toLowerCase() !== f.name.toLowerCase()) out.push(`${at}: descriptor calls it ${p.name}`);
      const t = f.type;
      const isMapEntry = p.type === 'message' && p.repeated && p.typeName.endsWith('Entry') && !p.typeName.endsWith('ManagedFieldsEntry');
      if (typeof t === 'string') {
        if (t !== p.type) out.push(`${at}: ${t} vs descriptor ${p.type}`);
        if (!!f.repeated !== p.repeated) out.push(`${at}: repeated ${!!f.repeated} vs ${p.repeated}`);
      } else if ('msg' in t) {
        if (p.type !== 'message' || isMapEntry) out.push(`${at}: message vs descriptor ${p.type} ${p.typeName}`);
        else {
          if (!!f.repeated !== p.repeated) out.push(`${at}: repeated ${!!f.repeated} vs ${p.repeated}`);
          problems(t.msg(), p.typeName, seen, out);
        }
      } else if (!isMapEntry) out.push(`${at}: map vs descriptor ${p.type} ${p.typeName}`);
      else {
        const value = descriptors.get(p.typeName)?.get(2);
        if (!value) out.push(`${at}: map entry without a value field`);
        else if (typeof t.map === 'string') {
          if (t.map !== value.type) out.push(`${at}: map value ${t.map} vs ${value.type}`);
        } else problems(t.map.msg(), value.typeName, seen, out);
      }
    }
  }

  it('the binary registers the k8s.io/api descriptors', () => {
    expect(descriptors.get(`${CORE}.PodSpec`)?.get(2)?.name).toBe('containers');
  });

  it.each(ROOTS)('%s', (_kind, table, protoName) => {
    const out: string[] = [];
    const seen = new Set<string>();
    problems(table, protoName, seen, out);
    expect(out).toEqual([]);
    expect(seen.size).toBeGreaterThan(0);
  });
});
