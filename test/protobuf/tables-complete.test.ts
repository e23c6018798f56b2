// Field validation (unknown fields → strict decoding error / warning) trusts every table to list all of the Go struct's JSON fields but its `unlisted` ones: check that against the descriptors kubectl 1.32 registers.
import { describe, expect, it } from 'vitest';
import type { Message } from '../../packages/apiserver/src/protobuf/schema.ts';
import * as apps from '../../packages/apiserver/src/protobuf/tables/apps-and-others.ts';
import * as core from '../../packages/apiserver/src/protobuf/tables/core.ts';
import * as coreEE from '../../packages/apiserver/src/protobuf/tables/core-endpoints-events.ts';
import * as discoveryEvents from '../../packages/apiserver/src/protobuf/tables/discovery-events.ts';
import * as node from '../../packages/apiserver/src/protobuf/tables/node.ts';
import * as rbac from '../../packages/apiserver/src/protobuf/tables/rbac.ts';
import * as certificates from '../../packages/apiserver/src/protobuf/tables/certificates.ts';
import * as reviews from '../../packages/apiserver/src/protobuf/tables/reviews.ts';
import { loadDescriptors, type ProtoField } from './descriptors.ts';
import { findKubectl132 } from './kubectl-bin.ts';

const CORE = 'k8s.io.api.core.v1';
const ROOTS: [Message, string][] = [
  [core.Namespace, `${CORE}.Namespace`],
  [core.ConfigMap, `${CORE}.ConfigMap`],
  [core.Secret, `${CORE}.Secret`],
  [core.ServiceAccount, `${CORE}.ServiceAccount`],
  [core.Service, `${CORE}.Service`],
  [core.Pod, `${CORE}.Pod`],
  [core.Binding, `${CORE}.Binding`],
  [node.Node, `${CORE}.Node`],
  [coreEE.Endpoints, `${CORE}.Endpoints`],
  [coreEE.Event, `${CORE}.Event`],
  [discoveryEvents.EndpointSlice, 'k8s.io.api.discovery.v1.EndpointSlice'],
  [discoveryEvents.Event, 'k8s.io.api.events.v1.Event'],
  [apps.Deployment, 'k8s.io.api.apps.v1.Deployment'],
  [apps.ReplicaSet, 'k8s.io.api.apps.v1.ReplicaSet'],
  [apps.Scale, 'k8s.io.api.autoscaling.v1.Scale'],
  [apps.PriorityClass, 'k8s.io.api.scheduling.v1.PriorityClass'],
  [apps.Lease, 'k8s.io.api.coordination.v1.Lease'],
  [reviews.SelfSubjectAccessReview, 'k8s.io.api.authorization.v1.SelfSubjectAccessReview'],
  [reviews.SelfSubjectRulesReview, 'k8s.io.api.authorization.v1.SelfSubjectRulesReview'],
  [reviews.SelfSubjectReview, 'k8s.io.api.authentication.v1.SelfSubjectReview'],
  [rbac.Role, 'k8s.io.api.rbac.v1.Role'],
  [rbac.ClusterRole, 'k8s.io.api.rbac.v1.ClusterRole'],
  [rbac.RoleBinding, 'k8s.io.api.rbac.v1.RoleBinding'],
  [rbac.ClusterRoleBinding, 'k8s.io.api.rbac.v1.ClusterRoleBinding'],
  // kubectl 1.32's binary registers no certificates/v1 descriptor; v1beta1's CSR has the same fields and numbers.
  [certificates.CertificateSigningRequest, 'k8s.io.api.certificates.v1beta1.CertificateSigningRequest'],
];

const kubectl132 = findKubectl132();

describe.skipIf(!kubectl132)('tables list every field but those named unlisted', () => {
  const descriptors = kubectl132 ? loadDescriptors(kubectl132) : new Map<string, Map<number, ProtoField>>();

  function missing(table: Message, protoName: string, seen: Set<string>, out: string[]): void {
    if (seen.has(protoName)) return;
    seen.add(protoName);
    const d = descriptors.get(protoName);
    if (!d || table.toJSON) return;
    if (table.unlisted !== 'any') {
      const unlisted = table.unlisted ?? [];
      for (const [num, p] of d) {
        if (!(num in table.fields) && !unlisted.includes(p.name)) out.push(`${protoName} #${num} ${p.name}`);
      }
    }
    for (const [num, f] of Object.entries(table.fields)) {
      const p = d.get(Number(num));
      if (!p || typeof f.type === 'string') continue;
      if ('msg' in f.type) missing(f.type.msg(), p.typeName, seen, out);
      else if (typeof f.type.map !== 'string') {
        const value = descriptors.get(p.typeName)?.get(2);
        if (value) missing(f.type.map.msg(), value.typeName, seen, out);
      }
    }
  }

  it.each(ROOTS)('%#', (table, protoName) => {
    const out: string[] = [];
    missing(table, protoName, new Set(), out);
    expect(out).toEqual([]);
  });
});
