import { describe, expect, it } from 'vitest';
import { NodeGraph, type BoundPod } from './graph.ts';

const bound = (name: string, nodeName: string, secrets: string[] = [], uid = `${name}-uid`): BoundPod => ({
  namespace: 'default',
  name,
  uid,
  nodeName,
  refs: { secrets, configmaps: [], pvcs: [], serviceAccount: 'default' },
});

describe('NodeGraph', () => {
  it('links a pod to its node and what it references to both, with Kubernetes’ reasons otherwise', () => {
    const g = new NodeGraph();
    g.addPod(bound('a', 'n1', ['s1']));
    g.addPod(bound('b', 'n2', ['s2']));
    expect(g.hasPathFrom('n1', 'secret', 'default', 's1')).toEqual({ ok: true });
    expect(g.hasPathFrom('n1', 'pod', 'default', 'a')).toEqual({ ok: true });
    expect(g.hasPathFrom('n1', 'serviceAccount', 'default', 'default')).toEqual({ ok: true });
    expect(g.hasPathFrom('n1', 'secret', 'default', 's2')).toEqual({
      ok: false,
      why: "node 'n1' cannot get secret default/s2, no relationship to this object was found in the node authorizer graph",
    });
    expect(g.hasPathFrom('n1', 'secret', 'default', 'nope')).toEqual({ ok: false, why: "node 'n1' cannot get unknown secret default/nope" });
    expect(g.hasPathFrom('n3', 'secret', 'default', 's1')).toEqual({ ok: false, why: "unknown node 'n3' cannot get secret default/s1" });
    expect(g.hasPathFrom('n1', 'secret', 'other', 's1').ok).toBe(false);
  });

  it('counts references: a secret stays reachable until the last pod on that node using it goes', () => {
    const g = new NodeGraph();
    g.addPod(bound('a', 'n1', ['shared']));
    g.addPod(bound('b', 'n1', ['shared']));
    g.deletePod('default', 'a');
    expect(g.hasPathFrom('n1', 'secret', 'default', 'shared').ok).toBe(true);
    g.deletePod('default', 'b');
    expect(g.hasPathFrom('n1', 'secret', 'default', 'shared').ok).toBe(false);
    expect(g.stats()).toEqual({ pods: 0, nodes: 0, objects: 0 });
  });

  it('replaces a pod re-added under the same name (a new uid on another node, or new references)', () => {
    const g = new NodeGraph();
    g.addPod(bound('a', 'n1', ['s1']));
    g.addPod(bound('a', 'n2', ['s1'], 'other-uid'));
    expect(g.hasPathFrom('n1', 'secret', 'default', 's1').ok).toBe(false);
    expect(g.hasPathFrom('n2', 'secret', 'default', 's1').ok).toBe(true);
    expect(g.nodeOf('default', 'a')).toBe('n2');
    g.addPod(bound('a', 'n2', ['s1', 's9'], 'other-uid'));
    expect(g.hasPathFrom('n2', 'secret', 'default', 's9').ok).toBe(true);
    g.addPod(bound('a', 'n2', ['s1', 's9'], 'other-uid')); // unchanged: a no-op
    expect(g.stats()).toEqual({ pods: 1, nodes: 1, objects: 3 });
  });
});
