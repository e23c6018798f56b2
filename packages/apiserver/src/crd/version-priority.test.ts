// Kubernetes' version order, as the apimachinery doc lists it: GA, then beta, then alpha, higher first; then others.
import { describe, expect, it } from 'vitest';
import { compareKubeAwareVersions } from './version-priority.ts';

describe('compareKubeAwareVersions', () => {
  it('sorts kube-like versions GA > beta > alpha, higher first, others after in reverse lexical order', () => {
    const input = ['foo1', 'v1alpha1', 'v10', 'v1beta1', 'v2', 'v11alpha2', 'v1', 'foo10', 'v12beta3', 'v3beta1', 'v1beta2', 'v10beta3'];
    expect([...input].sort((a, b) => compareKubeAwareVersions(b, a))).toEqual(['v10', 'v2', 'v1', 'v12beta3', 'v10beta3', 'v3beta1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10']);
  });
});
