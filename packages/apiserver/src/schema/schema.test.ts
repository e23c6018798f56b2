// The schema is the one source: every kind the server serves has an entry, every struct and field says what it
// is, and the three readers of list semantics — the published OpenAPI, strategic merge patch and server-side
// apply — answer for every list exactly what its entry says.
import { groupVersion, RESOURCES, type ResourceInfo } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { listType } from '../managedfields/schema.ts';
import { schemasFor, type Schema } from '../openapi-schemas.ts';
import { listStrategy } from '../patch/meta.ts';
import { KINDS, schemaOf, type Field, type Struct } from './index.ts';
import { fieldsOf, structOf } from './walk.ts';

interface ListAt {
  path: string[];
  field: Field;
  /** The struct holding the field, and its definition name if any. */
  owner: Struct;
}

/** Every list field reachable from a kind, once per struct (paths through the first way in). */
function listsOf(root: Struct): ListAt[] {
  const out: ListAt[] = [];
  const seen = new Set<Struct>();
  const visit = (s: Struct, path: string[]) => {
    if (seen.has(s)) return;
    seen.add(s);
    for (const f of fieldsOf(s).fields.values()) {
      const p = [...path, f.name];
      if (f.repeated) out.push({ path: p, field: f, owner: s });
      const child = structOf(f);
      if (!child || child.format) continue;
      // A map's values sit one key further down.
      const isMap = typeof f.type === 'object' && 'map' in f.type;
      visit(child, isMap ? [...p, 'key'] : p);
    }
  };
  visit(root, []);
  return out;
}

function allStructs(root: Struct): Struct[] {
  const seen = new Set<Struct>();
  const visit = (s: Struct) => {
    if (seen.has(s)) return;
    seen.add(s);
    for (const f of Object.values(s.fields)) {
      const c = structOf(f);
      if (c) visit(c);
    }
  };
  visit(root);
  return [...seen];
}

const resourceOf = (k: (typeof KINDS)[number]): ResourceInfo =>
  RESOURCES.find((r) => r.group === k.group && r.version === k.version && r.kind === k.kind) ??
  ({ group: k.group, version: k.version, kind: k.kind, plural: '', subresources: [] } as unknown as ResourceInfo);

/** The property schema the published OpenAPI gives a field of a named struct (inline structs flattened). */
function publishedProperty(k: (typeof KINDS)[number], owner: Struct, field: string): Schema | undefined {
  const { schemas } = schemasFor(k.group, k.version);
  const def = owner === k.struct ? schemas[owner.name || k.kind] : owner.name ? schemas[owner.name] : undefined;
  return (def?.properties as Record<string, Schema> | undefined)?.[field];
}

describe('the schema', () => {
  it('has an entry for every kind in the resource table and every subresource body', () => {
    const missing: string[] = [];
    for (const r of RESOURCES) {
      if (!schemaOf(groupVersion(r), r.kind)) missing.push(`${groupVersion(r)} ${r.kind}`);
      for (const s of r.subresources) if (!schemaOf(groupVersion(s), s.kind)) missing.push(`${r.plural}/${s.name}: ${groupVersion(s)} ${s.kind}`);
    }
    expect(missing).toEqual([]);
  });

  it('describes every named struct and every field', () => {
    const undescribed = new Set<string>();
    for (const k of KINDS)
      for (const s of allStructs(k.struct)) {
        const label = s.name || `(${k.kind}: struct with ${Object.values(s.fields).map((f) => f.name).join(',')})`;
        if (s.name && !s.description) undescribed.add(label);
        if (s.format) continue;
        for (const f of Object.values(s.fields)) if (!f.inline && !f.description) undescribed.add(`${label}.${f.name}`);
      }
    expect([...undescribed]).toEqual([]);
  });

  it('gives the same list semantics through OpenAPI, strategic merge patch and server-side apply', () => {
    const disagreements: string[] = [];
    let lists = 0;
    for (const k of KINDS) {
      const r = resourceOf(k);
      for (const { path, field, owner } of listsOf(k.struct)) {
        lists++;
        const at = `${k.kind} ${path.join('.')}`;
        const want = field.listType ?? { type: 'atomic' };
        // Server-side apply.
        const ssa = listType(r, path);
        const ssaType = ssa.kind === 'map' ? `map[${ssa.keys.join(',')}]` : ssa.kind;
        const wantType = want.type === 'map' ? `map[${want.keys.join(',')}]` : want.type;
        if (ssaType !== wantType) disagreements.push(`${at}: apply reads ${ssaType}, the schema says ${wantType}`);
        // Strategic merge patch.
        const smp = listStrategy(r, path);
        const smpWant = !field.patch?.strategy.includes('merge') ? 'replace' : typeof field.type === 'string' ? 'primitiveMerge' : field.patch.mergeKey ? `merge(${field.patch.mergeKey})` : 'replace';
        const smpGot = smp.kind === 'merge' ? `merge(${smp.key})` : smp.kind;
        if (smpGot !== smpWant) disagreements.push(`${at}: strategic merge reads ${smpGot}, the schema says ${smpWant}`);
        // A merge key is one of the apply keys when both key the list.
        if (field.patch?.mergeKey && want.type === 'map' && !want.keys.includes(field.patch.mergeKey)) disagreements.push(`${at}: merge key ${field.patch.mergeKey} is not a list-map key`);
        // The published OpenAPI (for fields of named structs, where kubectl explain and clients read them).
        const prop = publishedProperty(k, owner, field.name);
        if (!prop) continue;
        if (prop['x-kubernetes-list-type'] !== want.type) disagreements.push(`${at}: OpenAPI x-kubernetes-list-type ${String(prop['x-kubernetes-list-type'])}`);
        if (want.type === 'map' && JSON.stringify(prop['x-kubernetes-list-map-keys']) !== JSON.stringify(want.keys)) disagreements.push(`${at}: OpenAPI list-map-keys ${JSON.stringify(prop['x-kubernetes-list-map-keys'])}`);
        if (prop['x-kubernetes-patch-strategy'] !== field.patch?.strategy) disagreements.push(`${at}: OpenAPI patch strategy ${String(prop['x-kubernetes-patch-strategy'])}`);
        if (prop['x-kubernetes-patch-merge-key'] !== field.patch?.mergeKey) disagreements.push(`${at}: OpenAPI patch merge key ${String(prop['x-kubernetes-patch-merge-key'])}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(lists).toBeGreaterThan(100);
  });

  it('reads the known list semantics of a Pod as Kubernetes declares them', () => {
    const pods = RESOURCES.find((r) => r.plural === 'pods');
    expect(listType(pods, ['spec', 'containers'])).toEqual({ kind: 'map', keys: ['name'] });
    expect(listType(pods, ['spec', 'containers', 'ports'])).toEqual({ kind: 'map', keys: ['containerPort', 'protocol'], defaults: { protocol: 'TCP' } });
    expect(listType(pods, ['metadata', 'finalizers'])).toEqual({ kind: 'set' });
    expect(listType(pods, ['metadata', 'ownerReferences'])).toEqual({ kind: 'map', keys: ['uid'], atomicItems: true });
    expect(listStrategy(pods, ['spec', 'volumes'])).toEqual({ kind: 'merge', key: 'name', retainKeys: true });
    expect(listStrategy(pods, ['spec', 'containers', 'env'])).toEqual({ kind: 'merge', key: 'name' });
    expect(listStrategy(pods, ['spec', 'tolerations'])).toEqual({ kind: 'replace' });
  });
});
