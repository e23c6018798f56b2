// The API objects a lab's metrics-servers need, made at start-up (before any addon manager runs, and in labs that
// run none): the objects of the metrics-server addon (addons/metrics-server.yaml, components.yaml's: ServiceAccount,
// RBAC, the selector-less Service, the APIService v1beta1.metrics.k8s.io) and the Service's Endpoints, listing
// every metrics-server process on its port (name https, as the Service's port). Objects already there are kept
// (the user's edits stay), except the Endpoints, rewritten to the processes of this start, and an APIService
// v1beta1.metrics.k8s.io without a service (the Local one earlier kemu apiservers served themselves), replaced.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { R, StatusError, findResourceByKind, type KubeObject } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import { DEFAULT_ADDONS } from './lab-addons.ts';

export const METRICS_SERVICE = { namespace: 'kube-system', name: 'metrics-server' } as const;
export const METRICS_API_SERVICE = 'v1beta1.metrics.k8s.io';

/** The addon's objects, in file order. */
export function metricsServerAddonObjects(file = path.join(DEFAULT_ADDONS, 'metrics-server.yaml')): KubeObject[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => d.toJSON() as unknown)
    .filter((o): o is KubeObject => typeof o === 'object' && o !== null && 'kind' in o);
}

/** The Endpoints of the metrics-server Service: every process address on the shared port. */
export function metricsServerEndpoints(addresses: readonly string[], port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: METRICS_SERVICE.name, namespace: METRICS_SERVICE.namespace, labels: { 'k8s-app': 'metrics-server' } },
    subsets: [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  };
}

const is = (e: unknown, reason: string) => e instanceof StatusError && e.reason === reason;

/**
 * Creates what is missing; returns "Kind namespace/name" of what it made or replaced. No addresses: the addon's
 * objects only (the compose lab knows its container's address once it runs, which needs its RBAC first).
 */
export async function ensureMetricsServerObjects(client: RestClient, addresses: readonly string[], port: number): Promise<string[]> {
  const made: string[] = [];
  const label = (o: KubeObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;
  for (const obj of [...metricsServerAddonObjects(), ...(addresses.length ? [metricsServerEndpoints(addresses, port)] : [])]) {
    const r = findResourceByKind(obj.apiVersion ?? '', obj.kind ?? '');
    if (!r) throw new Error(`no resource for ${obj.apiVersion}/${obj.kind}`);
    const ns = obj.metadata.namespace;
    try {
      await client.create(r, ns, obj);
      made.push(label(obj));
      continue;
    } catch (e) {
      if (!is(e, 'AlreadyExists')) throw e;
    }
    const cur = await client.get<KubeObject>(r, ns, obj.metadata.name ?? '');
    if (r === R.endpoints) {
      if (JSON.stringify(cur.subsets) === JSON.stringify(obj.subsets)) continue;
      await client.update(r, ns, { ...cur, subsets: obj.subsets });
      made.push(`${label(obj)} (updated)`);
    } else if (r === R.apiservices && !(cur.spec as { service?: unknown } | undefined)?.service) {
      await client.update(r, ns, { ...cur, metadata: { ...cur.metadata, labels: obj.metadata.labels ?? {} }, spec: obj.spec });
      made.push(`${label(obj)} (replaced the Local one)`);
    }
  }
  return made;
}
