// Field validation (unknown fields → strict decoding error / warning) trusts every table to list all of the Go struct's JSON fields but its `unlisted` ones: check that against the descriptors kubectl 1.32 registers.
import { describe, expect, it } from 'vitest';
import type { Struct } from '../../packages/apiserver/src/schema/index.ts';
import { ROOTS } from './schema-roots.ts';
import { loadDescriptors, type ProtoField } from './descriptors.ts';
import { findKubectl132 } from './kubectl-bin.ts';

const kubectl132 = findKubectl132();

describe.skipIf(!kubectl132)('tables list every field but those named unlisted', () => {
  const descriptors = kubectl132 ? loadDescriptors(kubectl132) : new Map<string, Map<number, ProtoField>>();

  function missing(table: Struct, protoName: string, seen: Set<string>, out: string[]): void {
    if (seen.has(protoName)) return;
    seen.add(protoName);
    const d = descriptors.get(protoName);
    if (!d || table.format) return;
    if (table.unlisted !== 'any') {
      const unlisted = table.unlisted ?? [];
      for (const [num, p] of d) {
        if (!(num in table.fields) && !unlisted.includes(p.name)) out.push(`${protoName} #${num} ${p.name}`);
      }
    }
    for (const [num, f] of Object.entries(table.fields)) {
      const p = d.get(Number(num));
      if (!p || typeof f.type === 'string') continue;
      if ('struct' in f.type) missing(f.type.struct(), p.typeName, seen, out);
      else if (typeof f.type.map !== 'string') {
        const value = descriptors.get(p.typeName)?.get(2);
        if (value) missing(f.type.map.struct(), value.typeName, seen, out);
      }
    }
  }

  it.each(ROOTS)('%s', (_kind, table, protoName) => {
    const out: string[] = [];
    missing(table, protoName, new Set(), out);
    expect(out).toEqual([]);
  });
});
