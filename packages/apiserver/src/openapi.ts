// The OpenAPI v3 kubectl needs (CLIENT-WIRE §3): an index of group versions and, per group version, a PATCH
// operation per kind tagged with its GVK and carrying the fieldValidation parameter (--validate=strict), and
// components.schemas built from the kinds' schemas (src/schema), referenced from the responses (kubectl explain).
// application/strategic-merge-patch+json stays out of requestBody.content: kubectl then computes strategic
// merge patches from its compiled-in types. Custom resources' group versions are built from their CRDs'
// schemas (crd/openapi.ts) and rebuilt whenever the served set changes. Group versions of aggregated API
// servers are left to the aggregator (aggregator/openapi.ts), which has their own documents.
import { createHash } from 'node:crypto';
import { groupVersion, isAggregatedGroupVersion, onServedResourcesChange, RESOURCES, servedResources, type ResourceInfo } from '@kemu/api';
import { schemasFor } from './openapi-schemas.ts';
import { customResourceSchemas, definitionName } from './crd/openapi.ts';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function itemPath(r: ResourceInfo): string {
  const base = `/${gvPath(r.group, r.version)}`;
  return r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}/{name}` : `${base}/${r.plural}/{name}`;
}

const docCache = new Map<string, Record<string, unknown> | undefined>();
/** Custom resources' documents, dropped (with the index and v2) whenever the served set changes. */
const customDocCache = new Map<string, Record<string, unknown> | undefined>();
const BUILT_IN = new Set<ResourceInfo>(RESOURCES);
onServedResourcesChange(() => {
  customDocCache.clear();
  indexCache = undefined;
  v2Cache = undefined;
});

/** The group version's document (built-in ones built once: the resource table is fixed). */
export function openapiDocument(group: string, version: string): Record<string, unknown> | undefined {
  const key = `${group}/${version}`;
  if (!docCache.has(key)) docCache.set(key, buildDocument(group, version));
  const builtIn = docCache.get(key);
  if (builtIn) return builtIn;
  if (!customDocCache.has(key)) customDocCache.set(key, buildCustomDocument(group, version));
  return customDocCache.get(key);
}

function buildCustomDocument(group: string, version: string): Record<string, unknown> | undefined {
  const rs = servedResources().filter((r) => r.group === group && r.version === version && !BUILT_IN.has(r) && !isAggregatedGroupVersion(`${group}/${version}`));
  if (rs.length === 0) return undefined;
  const refs = new Map(rs.map((r) => [r.kind, `#/components/schemas/${definitionName(r, r.kind)}`]));
  return document(rs, customResourceSchemas(rs), refs);
}

function buildDocument(group: string, version: string): Record<string, unknown> | undefined {
  const rs = RESOURCES.filter((r) => r.group === group && r.version === version);
  if (rs.length === 0) return undefined;
  const { schemas, refs } = schemasFor(group, version);
  return document(rs, schemas, refs);
}

function document(rs: readonly ResourceInfo[], schemas: Record<string, unknown>, refs: Map<string, string>): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const r of rs) {
    if (!r.verbs.includes('patch')) continue;
    const ref = refs.get(r.kind);
    const content = ref ? { content: { 'application/json': { schema: { $ref: ref } } } } : {};
    paths[itemPath(r)] = {
      patch: {
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
        parameters: [
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
        ],
        requestBody: {
          content: {
            'application/json-patch+json': { schema: { type: 'object' } },
            'application/merge-patch+json': { schema: { type: 'object' } },
            'application/apply-patch+yaml': { schema: { type: 'object' } },
          },
        },
        responses: { '200': { description: 'OK', ...content }, '201': { description: 'Created', ...content } },
      },
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.31.0' }, paths, components: { schemas } };
}

let indexCache: Record<string, unknown> | undefined;

export function openapiIndex(): Record<string, unknown> {
  if (indexCache) return indexCache;
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const seen = new Set<string>();
  for (const r of servedResources()) {
    const gv = groupVersion(r);
    if (seen.has(gv) || isAggregatedGroupVersion(gv)) continue;
    seen.add(gv);
    const p = gvPath(r.group, r.version);
    const hash = createHash('sha512').update(JSON.stringify(openapiDocument(r.group, r.version))).digest('hex').slice(0, 128).toUpperCase();
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
  }
  indexCache = { paths };
  return indexCache;
}

let v2Cache: Record<string, unknown> | undefined;

/** Rewrites a v3 schema for Swagger 2.0: `#/definitions/` refs, and int-or-string as Kubernetes' v2 spells it. */
function toV2(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toV2);
  if (typeof v !== 'object' || v === null) return typeof v === 'string' && v.startsWith('#/components/schemas/') ? `#/definitions/${v.slice('#/components/schemas/'.length)}` : v;
  const o = v as Record<string, unknown>;
  if (o['x-kubernetes-int-or-string'] === true) {
    const { anyOf: _anyOf, ...rest } = o;
    return { ...rest, type: 'string', format: 'int-or-string' };
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, toV2(x)]));
}

/**
 * The Swagger 2.0 document (GET /openapi/v2 as JSON): every group version's definitions in one. Clients that
 * ask for it in protobuf (kubectl's fallback) are answered 404 by the route, which they accept.
 */
export function openapiV2Document(): Record<string, unknown> {
  if (v2Cache) return v2Cache;
  const definitions: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const r of servedResources()) {
    const gv = groupVersion(r);
    if (seen.has(gv) || isAggregatedGroupVersion(gv)) continue;
    seen.add(gv);
    const doc = openapiDocument(r.group, r.version) as { components: { schemas: Record<string, unknown> } };
    for (const [name, schema] of Object.entries(doc.components.schemas)) definitions[name] = toV2(schema);
  }
  v2Cache = { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.31.0' }, paths: {}, definitions };
  return v2Cache;
}
