// CustomResourceDefinitions for in-process tests: the object for a group, names and versions, and the create
// that waits until the resource is served (its watch event reached the cache).
import type { Answer, Method } from './inject-client.ts';
import { until } from './inject-client.ts';

export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

type Call = (method: Method, url: string, body?: unknown) => Promise<Answer<unknown>>;
type Obj = Record<string, unknown>;

export interface CrdOptions {
  group: string;
  /** plural and kind at least; singular, shortNames, categories as the test needs. */
  names: { plural: string; kind: string } & Obj;
  scope?: 'Namespaced' | 'Cluster';
  /** Each version's fields besides its name (served and storage default to true for a single version). */
  versions: ({ name: string } & Obj)[];
  /** More of spec (conversion). */
  spec?: Obj;
}

/** A single-version CRD's version entry for a schema. */
export function version(name: string, openAPIV3Schema: Obj, extra: Obj = {}): { name: string } & Obj {
  return { name, served: true, storage: true, schema: { openAPIV3Schema }, ...extra };
}

export function crdObject(o: CrdOptions): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.names.plural}.${o.group}` },
    spec: { group: o.group, scope: o.scope ?? 'Namespaced', names: o.names, versions: o.versions, ...(o.spec ?? {}) },
  };
}

/** Creates the CRD (a 201 or it throws with the answer) and waits until `servedUrl` answers 200. */
export async function createCrd(call: Call, crd: unknown, servedUrl: string): Promise<void> {
  const r = await call('POST', CRDS, crd);
  if (r.status !== 201) throw new Error(`CRD not created: ${r.status} ${JSON.stringify(r.body)}`);
  await until(async () => (await call('GET', servedUrl)).status === 200);
}
