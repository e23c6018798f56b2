// The RBAC bootstrap policy and its aggregation end to end: kube-apiserver creates admin/edit/view empty with
// aggregationRules at start-up, kube-controller-manager's clusterrole-aggregation-controller fills them, and a
// role a user labels aggregate-to-view shows up in view, edit and admin, as in Kubernetes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { R, type KubeObject } from '@kemu/api';
import { startEnv, waitFor, type Env } from './cluster.ts';

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
}
type ClusterRole = KubeObject & { rules?: Rule[] };

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  await env.startManager('kcm-0');
}, 60_000);
afterAll(async () => env?.stop());

const rulesOf = async (name: string): Promise<Rule[]> => (await env.client.get<ClusterRole>(R.clusterroles, undefined, name)).rules ?? [];
const grants = (rules: Rule[], group: string, resource: string, verb: string) =>
  rules.some((r) => r.apiGroups?.includes(group) && r.resources?.includes(resource) && r.verbs.includes(verb));

describe('clusterrole aggregation over the bootstrap policy', () => {
  it('fills view, edit and admin from the system:aggregate-to-* roles', async () => {
    // view → edit → admin settles over a few rounds (admin may see edit before edit has view's rules).
    await waitFor('admin aggregated through edit and view', async () => grants(await rulesOf('admin'), '', 'pods', 'list'), 30_000, 100);
    const view = await rulesOf('view');
    expect(grants(view, '', 'pods', 'list')).toBe(true);
    expect(grants(view, '', 'secrets', 'get')).toBe(false);
    const edit = await rulesOf('edit');
    expect(grants(edit, '', 'secrets', 'get')).toBe(true);
    expect(grants(edit, 'apps', 'deployments', 'create')).toBe(true);
    // admin = its own additions + edit's + view's (through edit).
    const admin = await rulesOf('admin');
    expect(grants(admin, 'rbac.authorization.k8s.io', 'rolebindings', 'create')).toBe(true);
    expect(grants(admin, 'authorization.k8s.io', 'localsubjectaccessreviews', 'create')).toBe(true);
  });

  it('a user role labelled aggregate-to-view reaches view, edit and admin, and leaves with its label', async () => {
    const file = path.join(env.dir, 'widgets.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: widget-viewer',
        '  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}',
        'rules:',
        '- {apiGroups: [example.com], resources: [widgets], verbs: [get, list, watch]}',
        '',
      ].join('\n'),
    );
    await env.kubectl('apply', '-f', file);
    for (const name of ['view', 'edit', 'admin']) {
      await waitFor(`${name} has widgets`, async () => grants(await rulesOf(name), 'example.com', 'widgets', 'list'), 30_000, 100);
    }
    await env.kubectl('label', 'clusterrole', 'widget-viewer', 'rbac.authorization.k8s.io/aggregate-to-view-');
    await waitFor('admin lost widgets', async () => !grants(await rulesOf('admin'), 'example.com', 'widgets', 'list'), 30_000, 100);
    expect(grants(await rulesOf('view'), 'example.com', 'widgets', 'list')).toBe(false);
  });
});
