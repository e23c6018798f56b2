// Every hand-written field table, walked from each top-level kind, agrees with the descriptors kubectl
// 1.32 itself registers: same field numbers, names, scalar types, repetition, maps and nested messages.
import { describe, expect, it } from 'vitest';
import type { Struct } from '../../packages/apiserver/src/schema/index.ts';
import { definitionOf, ROOTS } from './schema-roots.ts';
import { loadDescriptors, type ProtoField } from './descriptors.ts';
import { findKubectl132 } from './kubectl-bin.ts';

const CORE = 'k8s.io.api.core.v1';

const kubectl132 = findKubectl132();

describe.skipIf(!kubectl132)('the schema matches kubectl 1.32 descriptors', () => {
  const descriptors = kubectl132 ? loadDescriptors(kubectl132) : new Map<string, Map<number, ProtoField>>();

  function problems(table: Struct, protoName: string, seen: Set<string>, out: string[]): void {
    const key = protoName;
    if (seen.has(key)) return;
    seen.add(key);
    // The OpenAPI definition name is the Go type's (what kubectl explain prints and json errors name).
    if (table.name && table.name !== definitionOf(protoName)) out.push(`${protoName}: the schema names it ${table.name}`);
    const d = descriptors.get(protoName);
    if (!d) {
      out.push(`${protoName}: no descriptor`);
      return;
    }
    for (const [num, f] of Object.entries(table.fields)) {
      const p = d.get(Number(num));
      const at = `${protoName} #${num} ${f.name}`;
      if (!p) {
        out.push(`${at}: not in the descriptor`);
        continue;
      }
      if (p.name.toLowerCase() !== f.name.toLowerCase()) out.push(`${at}: descriptor calls it ${p.name}`);
      const t = f.type;
      const isMapEntry = p.type === 'message' && p.repeated && p.typeName.endsWith('Entry') && !p.typeName.endsWith('ManagedFieldsEntry');
      if (typeof t === 'string') {
        if (t !== p.type) out.push(`${at}: ${t} vs descriptor ${p.type}`);
        if (!!f.repeated !== p.repeated) out.push(`${at}: repeated ${!!f.repeated} vs ${p.repeated}`);
      } else if ('struct' in t) {
        if (p.type !== 'message' || isMapEntry) out.push(`${at}: message vs descriptor ${p.type} ${p.typeName}`);
        else {
          if (!!f.repeated !== p.repeated) out.push(`${at}: repeated ${!!f.repeated} vs ${p.repeated}`);
          problems(t.struct(), p.typeName, seen, out);
        }
      } else if (!isMapEntry) out.push(`${at}: map vs descriptor ${p.type} ${p.typeName}`);
      else {
        const value = descriptors.get(p.typeName)?.get(2);
        if (!value) out.push(`${at}: map entry without a value field`);
        else if (typeof t.map === 'string') {
          if (t.map !== value.type) out.push(`${at}: map value ${t.map} vs ${value.type}`);
        } else problems(t.map.struct(), value.typeName, seen, out);
      }
    }
  }

  it('the binary registers the k8s.io/api descriptors', () => {
    expect(descriptors.get(`${CORE}.PodSpec`)?.get(2)?.name).toBe('containers');
  });

  it.each(ROOTS)('%s', (_kind, table, protoName) => {
    const out: string[] = [];
    const seen = new Set<string>();
    problems(table, protoName, seen, out);
    expect(out).toEqual([]);
    expect(seen.size).toBeGreaterThan(0);
  });
});
