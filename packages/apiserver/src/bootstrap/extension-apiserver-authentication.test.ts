// The ConfigMap components read their client CAs from: Kubernetes' keys and JSON-array header lists, written
// once and rewritten only when the flags change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';
import { EXTENSION_APISERVER_AUTHENTICATION, writeClientCAConfigMap } from './extension-apiserver-authentication.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

const requestHeader = {
  clientCA: 'FRONT-PROXY-CA\n',
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
  allowedNames: ['aggregator'],
};

describe('extension-apiserver-authentication', () => {
  it('holds the client CA and the front-proxy settings under Kubernetes\' keys', async () => {
    await writeClientCAConfigMap(srv.ctx.registry, { clientCA: 'CA\n', requestHeader });
    const cm = await srv.ctx.registry.get(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION);
    expect(cm.data).toEqual({
      'client-ca-file': 'CA\n',
      'requestheader-client-ca-file': 'FRONT-PROXY-CA\n',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-allowed-names': '["aggregator"]',
    });
  });

  it('is left alone when nothing changed and updated when a flag did', async () => {
    const before = await srv.ctx.registry.get(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION);
    await writeClientCAConfigMap(srv.ctx.registry, { clientCA: 'CA\n', requestHeader });
    const same = await srv.ctx.registry.get(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION);
    expect(same.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    await writeClientCAConfigMap(srv.ctx.registry, { clientCA: 'NEW-CA\n' });
    const after = await srv.ctx.registry.get(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION);
    expect(after.data).toEqual({ 'client-ca-file': 'NEW-CA\n' });
  });
});
