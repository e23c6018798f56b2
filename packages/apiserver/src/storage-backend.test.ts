import { describe, expect, it } from 'vitest';
import { chooseStorage, type StorageFlags } from './storage-backend.ts';

const defaults: StorageFlags = {
  'storage-backend': '',
  'etcd-servers': [],
  'etcd-prefix': '/registry',
  'etcd-cafile': '',
  'etcd-certfile': '',
  'etcd-keyfile': '',
  'datastore-endpoint': '',
};

describe('chooseStorage', () => {
  it('without --etcd-servers keeps --datastore-endpoint (SQLite by default)', () => {
    expect(chooseStorage(defaults)).toEqual({ kind: 'datastore', endpoint: '' });
    expect(chooseStorage({ ...defaults, 'datastore-endpoint': 'memory://' })).toEqual({ kind: 'datastore', endpoint: 'memory://' });
  });

  it('--etcd-servers (several) selects etcd3 with the prefix and TLS files', () => {
    expect(
      chooseStorage({
        ...defaults,
        'storage-backend': 'etcd3',
        'etcd-servers': ['https://10.0.0.1:2379', 'https://10.0.0.2:2379'],
        'etcd-cafile': 'ca.crt',
        'etcd-certfile': 'c.crt',
        'etcd-keyfile': 'c.key',
      }),
    ).toEqual({
      kind: 'etcd3',
      etcd: { servers: 'https://10.0.0.1:2379,https://10.0.0.2:2379', prefix: '/registry', caFile: 'ca.crt', certFile: 'c.crt', keyFile: 'c.key' },
    });
  });

  it('refuses what kube-apiserver refuses, with its messages', () => {
    expect(chooseStorage({ ...defaults, 'storage-backend': 'etcd3' })).toEqual({ errors: ['--etcd-servers must be specified'] });
    expect(chooseStorage({ ...defaults, 'storage-backend': 'etcd2', 'etcd-servers': ['http://127.0.0.1:2379'] })).toEqual({
      errors: [`--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'`],
    });
    expect(chooseStorage({ ...defaults, 'etcd-servers': ['http://127.0.0.1:2379'], 'datastore-endpoint': 'sqlite:///x.db' })).toHaveProperty('errors');
    expect(chooseStorage({ ...defaults, 'etcd-servers': ['http://127.0.0.1:2379'], 'etcd-certfile': 'c.crt' })).toEqual({
      errors: ['--etcd-certfile and --etcd-keyfile must be given together'],
    });
  });
});
