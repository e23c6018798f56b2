import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@kemu/base';
import { ensureClusterPki } from '@kemu/pki';
import { COMPAT_FLAGS, checkCompatFlags, logNotInEffect, type CompatFlagValues } from './compat-flags.ts';

const defaults = (): CompatFlagValues =>
  Object.fromEntries(Object.entries(COMPAT_FLAGS).map(([k, v]) => [k, Array.isArray(v.default) ? [...v.default] : v.default])) as unknown as CompatFlagValues;

describe('kube-apiserver flags accepted but not in effect', () => {
  let dir = '';
  let pki = '';
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-compat-'));
    await ensureClusterPki({ dataDir: dir });
    pki = path.join(dir, 'pki');
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has Kubernetes\' defaults, and the defaults pass', () => {
    expect(COMPAT_FLAGS['storage-media-type'].default).toBe('application/vnd.kubernetes.protobuf');
    expect(COMPAT_FLAGS.profiling.default).toBe(true);
    expect(checkCompatFlags(defaults())).toBeUndefined();
  });

  it('loads the client certificate pairs it is given, as kube-apiserver does at start-up', () => {
    const pair = (cert: string, key: string) => checkCompatFlags({ ...defaults(), 'proxy-client-cert-file': path.join(pki, cert), 'proxy-client-key-file': path.join(pki, key) });
    expect(pair('front-proxy-client.pem', 'front-proxy-client-key.pem')).toBeUndefined();
    expect(pair('nope.pem', 'front-proxy-client-key.pem')).toEqual({ code: 1, message: `open ${path.join(pki, 'nope.pem')}: no such file or directory` });
    expect(pair('front-proxy-client.pem', 'admin-key.pem')?.message).toMatch(/^invalid client certificate\/key pair .*front-proxy-client\.pem, .*admin-key\.pem: .*does not match/);
    // One of the two alone is not used by Kubernetes, so not loaded.
    expect(checkCompatFlags({ ...defaults(), 'proxy-client-cert-file': '/nonexistent.pem' })).toBeUndefined();
  });

  it('refuses values kube-apiserver refuses, with its words', () => {
    expect(checkCompatFlags({ ...defaults(), 'feature-gates': ['A=true', 'B=maybe'] })?.message).toBe(
      'invalid argument "A=true,B=maybe" for "--feature-gates" flag: invalid value of B=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(checkCompatFlags({ ...defaults(), 'storage-media-type': 'text/plain' })?.message).toBe(
      '--storage-media-type "text/plain" invalid, allowed values: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    expect(checkCompatFlags({ ...defaults(), 'cors-allowed-origins': ['(unclosed'] })?.message).toMatch(/^--cors-allowed-origins has an invalid regular expression: /);
  });

  it('logs each flag given a value once; nothing for defaults', () => {
    const lines: string[] = [];
    const logger = createLogger('test', 0, {}, { destination: { write: (l: string) => lines.push(l) } });
    logNotInEffect(defaults(), logger);
    expect(lines).toEqual([]);
    // The aggregator's flags are in effect: no line for them.
    logNotInEffect({ ...defaults(), 'enable-aggregator-routing': true, profiling: false }, logger);
    expect(lines.filter((l) => l.includes('not in effect'))).toHaveLength(1);
    expect(lines[0]).toContain('flag="--profiling"');
  });
});
