// Merging aggregated servers' OpenAPI into the apiserver's, as kube-aggregator and kube-openapi do: a Swagger
// 2.0 document is cut down to the paths under /apis/<group>/<version>/ and the definitions they reference
// (FilterSpecByPathsWithoutSideEffects), then added after the apiserver's own (a path or definition name already
// there keeps the first one); a server without /openapi/v3 has its whole /openapi/v2 served, converted, as the
// v3 document of its group-version (lossy, as openapiconv: schemas and operations, no body parameters).
import { createHash } from 'node:crypto';
import { asRecord, isRecord } from '../validation/field.ts';

export interface SwaggerParts {
  paths: Record<string, unknown>;
  definitions: Record<string, unknown>;
}

const V2_PREFIX = '#/definitions/';

/** The definition names `v` refers to ($ref "#/definitions/<name>"), at any depth. */
function refsOf(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) refsOf(x, out);
  else if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string' && x.startsWith(V2_PREFIX)) out.add(x.slice(V2_PREFIX.length));
      else refsOf(x, out);
    }
  }
}

/** The paths starting with `prefix` and every definition reachable from them. */
export function filterSwagger(doc: unknown, prefix: string): SwaggerParts {
  const d = asRecord(doc) ?? {};
  const allPaths = asRecord(d.paths) ?? {};
  const allDefs = asRecord(d.definitions) ?? {};
  const paths = Object.fromEntries(Object.entries(allPaths).filter(([p]) => p.startsWith(prefix)));
  const wanted = new Set<string>();
  refsOf(paths, wanted);
  const definitions: Record<string, unknown> = {};
  const queue = [...wanted];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (!(name in allDefs) || name in definitions) continue;
    definitions[name] = allDefs[name];
    const more = new Set<string>();
    refsOf(allDefs[name], more);
    for (const m of more) if (!(m in definitions)) queue.push(m);
  }
  return { paths, definitions };
}

/** `base` with the paths and definitions of each part it does not have yet (the first one wins). */
export function mergeSwagger(base: Record<string, unknown>, parts: readonly SwaggerParts[]): Record<string, unknown> {
  const paths = { ...(asRecord(base.paths) ?? {}) };
  const definitions = { ...(asRecord(base.definitions) ?? {}) };
  for (const p of parts) {
    for (const [k, v] of Object.entries(p.paths)) if (!(k in paths)) paths[k] = v;
    for (const [k, v] of Object.entries(p.definitions)) if (!(k in definitions)) definitions[k] = v;
  }
  return { ...base, paths, definitions };
}

function refsToV3(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(refsToV3);
  if (!isRecord(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' && x.startsWith(V2_PREFIX) ? `#/components/schemas/${x.slice(V2_PREFIX.length)}` : refsToV3(x)]));
}

/** A Swagger 2.0 operation in v3 terms: response schemas under content, body parameters left out. */
function operationToV3(op: unknown): unknown {
  if (!isRecord(op)) return op;
  const { parameters, consumes: _consumes, produces: _produces, responses, ...rest } = op;
  const out: Record<string, unknown> = { ...rest };
  if (Array.isArray(parameters)) out.parameters = parameters.filter((p) => !(isRecord(p) && p.in === 'body'));
  if (isRecord(responses)) {
    out.responses = Object.fromEntries(
      Object.entries(responses).map(([code, r]) => {
        if (!isRecord(r)) return [code, r];
        const { schema, ...resp } = r;
        return [code, schema === undefined ? resp : { ...resp, content: { 'application/json': { schema } } }];
      }),
    );
  }
  return out;
}

/** An OpenAPI v3 document from a Swagger 2.0 one: its schemas and its paths' operations (kubectl explain finds kinds through them). */
export function swaggerToV3(doc: unknown): Record<string, unknown> {
  const d = asRecord(doc) ?? {};
  const paths = Object.fromEntries(
    Object.entries(asRecord(d.paths) ?? {}).map(([p, item]) => [p, isRecord(item) ? Object.fromEntries(Object.entries(item).map(([m, op]) => [m, m === 'parameters' ? op : operationToV3(op)])) : item]),
  );
  return { openapi: '3.0.0', info: asRecord(d.info) ?? { title: '', version: '' }, paths: refsToV3(paths), components: { schemas: refsToV3(asRecord(d.definitions) ?? {}) } };
}

/** handler3's hash of a document: the SHA-512 of its JSON, upper-case hex. */
export function documentHash(doc: unknown): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}
