// kube-system/extension-apiserver-authentication, as kube-apiserver's ClientCARegistrationHook writes it at start:
// the --client-ca-file bundle and, when --requestheader-client-ca-file is set, the front-proxy settings (header
// lists as JSON arrays). Components with delegated authentication (kube-controller-manager, kube-scheduler) read
// it when their own --client-ca-file / --requestheader-client-ca-file are not given. Written only when it differs.
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';

export const EXTENSION_APISERVER_AUTHENTICATION = 'extension-apiserver-authentication';

export interface ClientCAConfig {
  /** The --client-ca-file bundle (PEM text), if any. */
  clientCA?: string;
  requestHeader?: {
    /** The --requestheader-client-ca-file bundle (PEM text). */
    clientCA: string;
    usernameHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeaderPrefixes: readonly string[];
    allowedNames: readonly string[];
  };
}

export function clientCAConfigMapData(c: ClientCAConfig): Record<string, string> {
  const data: Record<string, string> = {};
  if (c.clientCA) data['client-ca-file'] = c.clientCA;
  const rh = c.requestHeader;
  if (rh && rh.clientCA) {
    data['requestheader-username-headers'] = JSON.stringify(rh.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(rh.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(rh.extraHeaderPrefixes);
    data['requestheader-client-ca-file'] = rh.clientCA;
    data['requestheader-allowed-names'] = JSON.stringify(rh.allowedNames);
  }
  return data;
}

function sameData(a: unknown, b: Record<string, string>): boolean {
  const x = (a ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(b)]);
  return [...keys].every((k) => x[k] === b[k]);
}

/** Creates or updates the ConfigMap (replicas race: a conflict or AlreadyExists is retried a few times). */
export async function writeClientCAConfigMap(registry: Registry, c: ClientCAConfig): Promise<void> {
  const data = clientCAConfigMapData(c);
  for (let attempt = 0; ; attempt++) {
    try {
      let current: KubeObject | undefined;
      try {
        current = await registry.get(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION);
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
      }
      if (!current) {
        await registry.create(R.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: EXTENSION_APISERVER_AUTHENTICATION, namespace: 'kube-system' }, data });
        return;
      }
      if (sameData(current.data, data)) return;
      await registry.update(R.configmaps, 'kube-system', EXTENSION_APISERVER_AUTHENTICATION, { ...current, data });
      return;
    } catch (e) {
      if (!(e instanceof StatusError && (e.reason === 'AlreadyExists' || e.reason === 'Conflict')) || attempt >= 5) throw e;
    }
  }
}
