import { describe, expect, it } from 'vitest';
import { StatusError, type Container, type KubeObject, type Pod } from '@kemu/api';
import { containerMounts } from './contents.ts';

const objects: Record<string, KubeObject> = {
  'configmaps/cfg': { metadata: { name: 'cfg' }, data: { key: 'value', 'app.conf': 'a=1\n' }, binaryData: { 'bin.dat': Buffer.from([0xff, 0]).toString('base64') } } as KubeObject,
  'secrets/sec': { metadata: { name: 'sec' }, data: { password: Buffer.from('s3cret').toString('base64') } } as KubeObject,
  'configmaps/kube-root-ca.crt': { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\n' } } as KubeObject,
};
const client = {
  get: (async (r: { plural: string }, _ns: string | undefined, name: string) => {
    const o = objects[`${r.plural}/${name}`];
    if (!o) throw new StatusError('NotFound', `${r.plural} "${name}" not found`, undefined, 404);
    return o;
  }) as never,
};

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'u1', labels: { app: 'web', tier: 'front' } },
  spec: {
    containers: [],
    volumes: [
      { name: 'config', configMap: { name: 'cfg', defaultMode: 0o400 } },
      { name: 'picked', configMap: { name: 'cfg', items: [{ key: 'key', path: 'dir/k.txt', mode: 0o600 }] } },
      { name: 'secret', secret: { secretName: 'sec' } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
      {
        name: 'kube-api-access-abcde',
        projected: {
          defaultMode: 0o644,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
      { name: 'scratch', emptyDir: {} },
    ],
  },
};

describe('volume contents', () => {
  it('writes each source as the kubelet projects it, at its mount path', async () => {
    const c: Container = {
      name: 'c',
      volumeMounts: [
        { name: 'config', mountPath: '/etc/config' },
        { name: 'picked', mountPath: '/picked' },
        { name: 'secret', mountPath: '/etc/secret' },
        { name: 'info', mountPath: '/etc/podinfo' },
        { name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
        { name: 'scratch', mountPath: '/scratch' },
        { name: 'config', mountPath: '/app/app.conf', subPath: 'app.conf' },
      ],
    };
    const mounts = await containerMounts(client, pod, c, (v) => (v === 'kube-api-access-abcde' ? 'eyJtoken' : undefined));
    const files = Object.fromEntries(mounts.flatMap((m) => [...m.files].map(([p, f]) => [p, [f.content.toString('latin1'), f.mode.toString(8)]])));
    expect(files).toEqual({
      '/etc/config/key': ['value', '400'],
      '/etc/config/app.conf': ['a=1\n', '400'],
      '/etc/config/bin.dat': ['\xff\x00', '400'],
      '/picked/dir/k.txt': ['value', '600'],
      '/etc/secret/password': ['s3cret', '644'],
      '/etc/podinfo/labels': ['app="web"\ntier="front"', '644'],
      '/etc/podinfo/name': ['web', '644'],
      '/var/run/secrets/kubernetes.io/serviceaccount/token': ['eyJtoken', '644'],
      '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt': ['-----BEGIN CERTIFICATE-----\n', '644'],
      '/var/run/secrets/kubernetes.io/serviceaccount/namespace': ['default', '644'],
      '/app/app.conf': ['a=1\n', '400'],
    });
    expect(mounts.map((m) => [m.mountPath, m.live, m.single])).toContainEqual(['/scratch', false, false]);
    expect(mounts.map((m) => [m.mountPath, m.live, m.single])).toContainEqual(['/app/app.conf', false, true]);
    expect(mounts.map((m) => [m.mountPath, m.live, m.single])).toContainEqual(['/etc/config', true, false]);
  });
});
