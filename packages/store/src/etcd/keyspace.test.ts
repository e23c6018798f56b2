import { describe, expect, it } from 'vitest';
import { parseEtcdServers } from './client.ts';
import { KeySpace, bytePrefixEnd } from './keyspace.ts';

describe('KeySpace', () => {
  it('keeps the store keys as they are under the default --etcd-prefix /registry', () => {
    const ks = new KeySpace('/registry');
    expect(ks.toEtcd('/registry/pods/default/a').toString()).toBe('/registry/pods/default/a');
    expect(ks.fromEtcd(Buffer.from('/registry/pods/default/a'))).toBe('/registry/pods/default/a');
  });

  it('puts /registry/<resource>/... under another prefix as <prefix>/<resource>/..., trailing slashes ignored', () => {
    const ks = new KeySpace('/kemu/');
    expect(ks.toEtcd('/registry/pods/default/a').toString()).toBe('/kemu/pods/default/a');
    expect(ks.fromEtcd(Buffer.from('/kemu/pods/default/a'))).toBe('/registry/pods/default/a');
    expect(() => ks.toEtcd('/other/x')).toThrow(TypeError);
  });

  it('maps list prefixes: under /registry/ exactly, "/" to the whole prefix, others to nothing', () => {
    const ks = new KeySpace('/kemu');
    const r = (p: string): string[] | undefined => {
      const x = ks.range(p);
      return x && [x.key.toString(), x.rangeEnd.toString()];
    };
    expect(r('/registry/pods/')).toEqual(['/kemu/pods/', '/kemu/pods0']);
    expect(r('/')).toEqual(['/kemu/', '/kemu0']);
    expect(r('')).toEqual(['/kemu/', '/kemu0']);
    expect(r('/services')).toBeUndefined();
  });

  it('prefix ends are byte-wise as etcd clients compute them', () => {
    expect(bytePrefixEnd(Buffer.from([0x61, 0xff]))).toEqual(Buffer.from([0x62]));
    expect(bytePrefixEnd(Buffer.from([0xff]))).toEqual(Buffer.from([0]));
  });
});

describe('parseEtcdServers', () => {
  it('takes several comma-separated URLs, https meaning TLS', () => {
    expect(parseEtcdServers('https://10.0.0.1:2379, http://etcd-1:12379,127.0.0.1:2379')).toEqual([
      { url: 'https://10.0.0.1:2379', address: '10.0.0.1:2379', secure: true },
      { url: 'http://etcd-1:12379', address: 'etcd-1:12379', secure: false },
      { url: '127.0.0.1:2379', address: '127.0.0.1:2379', secure: false },
    ]);
  });

  it('refuses an empty list and other schemes', () => {
    expect(() => parseEtcdServers('')).toThrow(/at least one/);
    expect(() => parseEtcdServers('unix:///run/etcd.sock')).toThrow(/scheme must be http or https/);
  });
});
