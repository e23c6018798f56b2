import type { KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { podReferences } from './pod-references.ts';

const pod = (spec: Record<string, unknown>, name = 'web'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec });

describe('podReferences', () => {
  it('finds secrets in image pull secrets, envFrom, env valueFrom (all container kinds) and volumes', () => {
    const refs = podReferences(
      pod({
        imagePullSecrets: [{ name: 'pull' }, { name: '' }],
        initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
        containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-key', key: 'k' } } }, { name: 'B', value: 'x' }] }],
        ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'debug-env' } }] }],
        volumes: [
          { name: 'v1', secret: { secretName: 'vol' } },
          { name: 'v2', projected: { sources: [{ secret: { name: 'proj' } }, { serviceAccountToken: { path: 't' } }] } },
          { name: 'v3', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
          { name: 'v4', azureFile: { secretName: 'azure', shareName: 's' } },
          { name: 'v5', rbd: { monitors: [], image: 'i', secretRef: { name: 'rbd' } } },
        ],
      }),
    );
    expect(refs.secrets.sort()).toEqual(['azure', 'csi', 'debug-env', 'env-key', 'init-env', 'proj', 'pull', 'rbd', 'vol']);
  });

  it('finds configmaps in envFrom, env valueFrom, configMap and projected volumes', () => {
    const refs = podReferences(
      pod({
        containers: [
          { name: 'c', envFrom: [{ configMapRef: { name: 'env-all' } }], env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'env-key', key: 'k' } } }] },
        ],
        volumes: [
          { name: 'v1', configMap: { name: 'vol' } },
          { name: 'kube-api-access-abcde', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { downwardAPI: {} }] } },
        ],
      }),
    );
    expect(refs.configmaps.sort()).toEqual(['env-all', 'env-key', 'kube-root-ca.crt', 'vol']);
    expect(refs.secrets).toEqual([]);
  });

  it('finds claims (named ones and <pod>-<volume> for generic ephemeral volumes) and the service account', () => {
    const refs = podReferences(
      pod({
        serviceAccountName: 'builder',
        containers: [{ name: 'c' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data-claim' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      }),
    );
    expect(refs.pvcs).toEqual(['data-claim', 'web-scratch']);
    expect(refs.serviceAccount).toBe('builder');
    expect(podReferences(pod({ serviceAccount: 'old', containers: [] })).serviceAccount).toBe('old');
  });

  it('survives malformed specs', () => {
    expect(podReferences(pod({ containers: 'nope', volumes: [null, 3, { name: 'v', secret: null }], imagePullSecrets: [{}] }))).toEqual({
      secrets: [],
      configmaps: [],
      pvcs: [],
      serviceAccount: '',
    });
  });
});
