import type { KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../../authn/user.ts';
import { attributesOf, requestInfo } from '../request-info.ts';
import type { AuthorizationResult } from '../types.ts';
import { NodeGraph } from './graph.ts';
import { boundPod } from './graph-populator.ts';
import { NodeAuthorizer } from './node-authorizer.ts';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });
const n1 = node('n1');

const pod = (name: string, nodeName: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `${name}-uid`, ...(annotations ? { annotations } : {}) },
  spec: { nodeName, serviceAccountName: 'default', containers: [{ name: 'c' }], ...spec },
});

function setup(): NodeAuthorizer {
  const g = new NodeGraph();
  for (const p of [
    pod('web', 'n1', {
      serviceAccountName: 'web-sa',
      volumes: [
        { name: 'tls', secret: { secretName: 'web-tls' } },
        { name: 'kube-api-access-x', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } },
        { name: 'data', persistentVolumeClaim: { claimName: 'web-data' } },
      ],
    }),
    pod('db', 'n2', { volumes: [{ name: 'pw', secret: { secretName: 'db-password' } }] }),
    pod('mirror', 'n1', { volumes: [{ name: 's', secret: { secretName: 'mirror-secret' } }] }, { 'kubernetes.io/config.mirror': 'x' }),
  ]) {
    const b = boundPod(p);
    if (b) g.addPod(b);
  }
  return new NodeAuthorizer(g);
}

/** The decision for an HTTP request as the pipeline will make it (RequestInfo → Attributes). */
function decide(az: NodeAuthorizer, user: UserInfo, method: string, url: string): AuthorizationResult {
  const u = new URL(url, 'https://kemu');
  return az.authorize(attributesOf(user, requestInfo(method, u.pathname, u.searchParams))) as AuthorizationResult;
}

const allow = { decision: 'allow', reason: '' };
const noOpinion = (reason: string) => ({ decision: 'noOpinion', reason });
const NO_RELATION = "no relationship found between node 'n1' and this object";

describe('NodeAuthorizer', () => {
  const az = setup();

  it('has no opinion about anyone but a node, and refuses a node user without a name', () => {
    expect(decide(az, { username: 'jane', groups: ['system:authenticated'] }, 'GET', '/api/v1/namespaces/default/secrets/web-tls')).toEqual(noOpinion(''));
    // The prefix without the group is not a node (Kubernetes' NodeIdentity).
    expect(decide(az, { username: 'system:node:n1', groups: [] }, 'GET', '/api/v1/namespaces/default/secrets/web-tls')).toEqual(noOpinion(''));
    expect(decide(az, node(''), 'GET', '/api/v1/nodes/n1')).toEqual(noOpinion('unknown node for user "system:node:"'));
  });

  it('lets a node read the secrets, configmaps and claims its pods reference, and nothing else', () => {
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/secrets/web-tls')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dweb-tls&watch=true')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/web-data')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/secrets/db-password')).toEqual(noOpinion(NO_RELATION));
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/other/secrets/web-tls')).toEqual(noOpinion(NO_RELATION));
    expect(decide(az, n1, 'GET', '/api/v1/persistentvolumes/pv-1')).toEqual(noOpinion(NO_RELATION));
    // A mirror pod grants nothing beyond itself.
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/secrets/mirror-secret')).toEqual(noOpinion(NO_RELATION));
  });

  it('words the refusals of reads it cannot scope as Kubernetes does', () => {
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/secrets')).toEqual(noOpinion('No Object name found'));
    expect(decide(az, n1, 'GET', '/api/v1/secrets')).toEqual(noOpinion('can only read namespaced object of this type'));
    expect(decide(az, n1, 'DELETE', '/api/v1/namespaces/default/secrets/web-tls')).toEqual(noOpinion('can only read resources of this type'));
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims')).toEqual(noOpinion('can only get individual resources of this type'));
    expect(decide(az, n1, 'PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/web-data/status')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/persistentvolumeclaims/web-data/status')).toEqual(noOpinion('can only get/update/patch this type'));
  });

  it("lets a node create tokens only for its pods' service accounts", () => {
    expect(decide(az, n1, 'POST', '/api/v1/namespaces/default/serviceaccounts/web-sa/token')).toEqual(allow);
    expect(decide(az, node('n2'), 'POST', '/api/v1/namespaces/default/serviceaccounts/web-sa/token')).toEqual(
      noOpinion("no relationship found between node 'n2' and this object"),
    );
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/serviceaccounts/web-sa')).toEqual(noOpinion('can only create tokens for individual service accounts'));
    expect(decide(az, n1, 'POST', '/api/v1/namespaces/default/serviceaccounts')).toEqual(noOpinion('can only create tokens for individual service accounts'));
  });

  it('lets a node read and write its own Node and Lease only', () => {
    expect(decide(az, n1, 'GET', '/api/v1/nodes/n1')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/nodes')).toEqual(noOpinion("node 'n1' cannot read all nodes, only its own Node object"));
    expect(decide(az, n1, 'GET', '/api/v1/nodes/n2')).toEqual(noOpinion("node 'n1' cannot read 'n2', only its own Node object"));
    expect(decide(az, n1, 'POST', '/api/v1/nodes')).toEqual(allow);
    expect(decide(az, n1, 'PATCH', '/api/v1/nodes/n1/status')).toEqual(allow);
    expect(decide(az, n1, 'DELETE', '/api/v1/nodes/n1')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).toEqual(allow);
    expect(decide(az, n1, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2')).toEqual(
      noOpinion('can only access node lease with the same name as the requesting node'),
    );
    expect(decide(az, n1, 'PATCH', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).toEqual(
      noOpinion('can only access leases in the "kube-node-lease" system namespace'),
    );
    expect(decide(az, n1, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).toEqual(
      noOpinion('can only get, create, update, patch, or delete a node lease'),
    );
  });

  it('lets a node read its own pods, list them by spec.nodeName, and make the writes NodeRestriction narrows', () => {
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/pods/web')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/pods/db')).toEqual(noOpinion(NO_RELATION));
    expect(decide(az, n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&watch=1')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3D%3Dn1')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn2')).toEqual(noOpinion('can only list/watch pods with spec.nodeName field selector'));
    expect(decide(az, n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName!%3Dn1')).toEqual(noOpinion('can only list/watch pods with spec.nodeName field selector'));
    expect(decide(az, n1, 'GET', '/api/v1/pods')).toEqual(noOpinion('can only list/watch pods with spec.nodeName field selector'));
    expect(decide(az, n1, 'POST', '/api/v1/namespaces/default/pods')).toEqual(allow);
    expect(decide(az, n1, 'DELETE', '/api/v1/namespaces/default/pods/web')).toEqual(allow);
    expect(decide(az, n1, 'PATCH', '/api/v1/namespaces/default/pods/web/status')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/api/v1/namespaces/default/pods/web/eviction')).toEqual(allow);
    expect(decide(az, n1, 'PUT', '/api/v1/namespaces/default/pods/web')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/pods/web/log')).toEqual(noOpinion(''));
  });

  it('decides everything else by the static node rules', () => {
    expect(decide(az, n1, 'GET', '/api/v1/services')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/api/v1/namespaces/default/events')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/apis/storage.k8s.io/v1/csidrivers')).toEqual(allow);
    expect(decide(az, n1, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'GET', '/api/v1/namespaces/default/endpoints')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'DELETE', '/api/v1/namespaces/default/services/x')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'GET', '/apis/apps/v1/deployments')).toEqual(noOpinion(''));
    expect(decide(az, n1, 'GET', '/healthz')).toEqual(noOpinion(''));
  });

  it('decides csinodes by name and resourceslices by verb and field selector', () => {
    expect(decide(az, n1, 'PUT', '/apis/storage.k8s.io/v1/csinodes/n1')).toEqual(allow);
    expect(decide(az, n1, 'PUT', '/apis/storage.k8s.io/v1/csinodes/n2')).toEqual(noOpinion('can only access CSINode with the same name as the requesting node'));
    expect(decide(az, n1, 'POST', '/apis/resource.k8s.io/v1beta1/resourceslices')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/apis/resource.k8s.io/v1beta1/resourceslices?fieldSelector=nodeName%3Dn1')).toEqual(allow);
    expect(decide(az, n1, 'GET', '/apis/resource.k8s.io/v1beta1/resourceslices')).toEqual(
      noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector'),
    );
  });

  it('cannot list what a node may do (rules review is incomplete for nodes)', () => {
    expect(az.rulesFor(n1)).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
    expect(az.rulesFor({ username: 'jane', groups: [] })).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});
