// The Node authorizer (--authorization-mode=Node), as Kubernetes 1.32's: it speaks only for users
// `system:node:<name>` in `system:nodes` (everyone else: no opinion, reason ""), and
// - secrets and configmaps (get/list/watch by name), persistentvolumeclaims and persistentvolumes (get;
//   PVC status update/patch), volumeattachments and resourceclaims (get), serviceaccounts (create of the
//   token subresource): only objects its bound pods reference, found in the graph;
// - leases in kube-node-lease and csinodes: only the one named after the node (create: any name, as
//   NodeRestriction checks it);
// - nodes and pods (AuthorizeNodeWithSelectors, on by default in 1.32): its own Node by name, pods bound to
//   it by name or listed with `spec.nodeName=<node>`, and the writes NodeRestriction narrows;
// - resourceslices by their verb rules;
// - anything else: allowed when the static node rules (node-rules.ts) allow it.
// A refusal is always "no opinion" with Kubernetes' reason, so a later authorizer (RBAC) may still allow.
import { R } from '@kemu/api';
import { NODE_LEASE_NAMESPACE } from '../../admission/node-restriction.ts';
import { nodeIdentity } from '../../authn/node-identity.ts';
import type { UserInfo } from '../../authn/user.ts';
import type { Attributes, AuthorizationResult, Authorizer, RulesResult } from '../types.ts';
import type { NodeGraphView, VertexType } from './graph.ts';
import { NODE_RULES } from './node-rules.ts';
import type { PolicyRule } from '@kemu/api';
import { rulesAllow } from '../rbac-rules.ts';

const ALLOW: AuthorizationResult = { decision: 'allow', reason: '' };
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'noOpinion', reason });

const gr = (r: { group: string; plural: string }): string => `${r.plural}.${r.group}`;
// Kinds kemu does not serve yet are still decided here (authorization runs before the lookup that 404s).
const PVCS = 'persistentvolumeclaims.';
const PVS = 'persistentvolumes.';
const RESOURCE_CLAIMS = 'resourceclaims.resource.k8s.io';
const RESOURCE_SLICES = 'resourceslices.resource.k8s.io';
const VOLUME_ATTACHMENTS = 'volumeattachments.storage.k8s.io';
const CSI_NODES = 'csinodes.storage.k8s.io';

export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';

  constructor(
    private readonly graph: NodeGraphView,
    private readonly rules: readonly PolicyRule[] = NODE_RULES,
  ) {}

  authorize(a: Attributes): AuthorizationResult {
    const id = nodeIdentity(a.user);
    if (!id) return noOpinion('');
    const node = id.nodeName;
    if (node === '') return noOpinion(`unknown node for user "${a.user.username}"`);
    if (a.resourceRequest) {
      switch (`${a.resource}.${a.apiGroup}`) {
        case gr(R.secrets):
          return this.readNamespacedObject(node, 'secret', a);
        case gr(R.configmaps):
          return this.readNamespacedObject(node, 'configmap', a);
        case PVCS:
          return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.get(node, 'pvc', a);
        case PVS:
          return this.get(node, 'pv', a);
        case RESOURCE_CLAIMS:
          return this.get(node, 'resourceclaim', a);
        case VOLUME_ATTACHMENTS:
          return this.get(node, 'volumeattachment', a);
        case gr(R.serviceaccounts):
          return this.createToken(node, a);
        case gr(R.leases):
          return this.lease(node, a);
        case CSI_NODES:
          return this.csiNode(node, a);
        case RESOURCE_SLICES:
          return this.resourceSlice(node, a);
        case gr(R.nodes):
          return this.nodeObject(node, a);
        case gr(R.pods):
          return this.pod(node, a);
      }
    }
    // Everything else is not subdivided: the static node rules decide.
    return rulesAllow(a, this.rules) ? ALLOW : noOpinion('');
  }

  /** Kubernetes' RulesFor: a node's permissions cannot be listed (incomplete); others get nothing from here. */
  rulesFor(user: UserInfo): RulesResult {
    if (nodeIdentity(user)) return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  private statusUpdate(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return this.related(node, type, a);
  }

  private readNamespacedObject(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private related(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.name === '') return noOpinion('No Object name found');
    return this.path(node, type, a);
  }

  private path(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    const found = this.graph.hasPathFrom(node, type, a.namespace, a.name);
    return found.ok ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private createToken(node: string, a: Attributes): AuthorizationResult {
    if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.path(node, 'serviceAccount', a);
  }

  private lease(node: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // On create the name is in the body, which NodeRestriction checks.
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private csiNode(node: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  private resourceSlice(node: string, a: Attributes): AuthorizationResult {
    if (a.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (a.verb) {
      case 'create':
        return ALLOW; // NodeRestriction checks the slice's nodeName
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(node, 'resourceslice', a);
      case 'watch':
      case 'list':
      case 'deletecollection':
        return selects(a, 'nodeName', node) ? ALLOW : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  private nodeObject(node: string, a: Attributes): AuthorizationResult {
    if (a.subresource === '') {
      // Creating and updating a Node: NodeRestriction limits a node to its own.
      if (a.verb === 'create' || a.verb === 'update' || a.verb === 'patch') return ALLOW;
      if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
        // By name rather than from the graph, so a kubelet can read its Node before creating it.
        if (a.name === node) return ALLOW;
        if (a.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return ALLOW;
    }
    return noOpinion('');
  }

  private pod(node: string, a: Attributes): AuthorizationResult {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return this.get(node, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (selects(a, 'spec.nodeName', node)) return ALLOW;
          if (a.name !== '') return this.related(node, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods: NodeRestriction limits creation and deletion to pods bound to the node.
        if (a.verb === 'create' || a.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion('');
  }
}

/** The request's field selector pins `field` to `value` (an `=`/`==` requirement). */
function selects(a: Attributes, field: string, value: string): boolean {
  return (a.fieldSelector ?? []).some((r) => r.field === field && r.operator === '=' && r.value === value);
}

export function nodeAuthorizer(graph: NodeGraphView, rules: readonly PolicyRule[] = NODE_RULES): NodeAuthorizer {
  return new NodeAuthorizer(graph, rules);
}
