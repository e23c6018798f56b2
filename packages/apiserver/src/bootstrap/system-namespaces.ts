// The namespaces every cluster has, created at first start. Replicas race to create them; the store's
// create-if-absent makes exactly one win and the others see AlreadyExists, which is fine.
import { R, StatusError, type KubeObject } from '@kemu/api';
import { namespaceCreateDefaults } from '../admission/namespace-lifecycle.ts';
import type { Registry } from '../registry/registry.ts';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
    namespaceCreateDefaults(ns);
    try {
      await registry.create(R.namespaces, ns);
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
}
