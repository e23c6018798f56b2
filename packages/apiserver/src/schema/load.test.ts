// The loader turns kinds/*.yaml into structs and refuses, naming the file and struct, what it does not understand.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSchema } from './load.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function schemaDir(files: Record<string, string>): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-schema-'));
  dirs.push(d);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(d, name), text);
  return d;
}

const WIDGET = `package: io.example.v1
kinds:
  Widget: example.io/v1
structs:
  Widget:
    description: "A widget."
    fields:
      1: { name: metadata, type: ObjectMeta, description: "Its metadata." }
      2: { name: parts, type: "[]Part", list: map, keys: [name], patch: "merge", mergeKey: name, description: "Its parts." }
      3: { name: sizes, type: "map[string]int64", atomicMap: true, description: "Sizes by name." }
      4: { name: replicas, type: "*int32", description: "How many." }
  Part:
    description: "A part."
    atomic: true
    fields:
      1: { name: name, type: string, description: "Its name." }
`;
const META = `package: io.k8s.apimachinery.pkg.apis.meta.v1
structs:
  ObjectMeta:
    description: "Metadata."
    fields:
      1: { name: name, type: string, description: "The name." }
`;

describe('loadSchema', () => {
  it('builds kinds and structs with types resolved across files', () => {
    const s = loadSchema(schemaDir({ 'a.yaml': WIDGET, 'meta.yaml': META }));
    expect(s.kinds.map((k) => [k.group, k.version, k.kind])).toEqual([['example.io', 'v1', 'Widget']]);
    const w = s.structs.get('io.example.v1.Widget');
    const fields = w?.fields ?? {};
    expect(fields[1]?.type).toMatchObject({ struct: expect.any(Function) });
    expect((fields[1]?.type as { struct: () => { name: string } }).struct().name).toBe('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(fields[2]).toMatchObject({ repeated: true, listType: { type: 'map', keys: ['name'] }, patch: { strategy: 'merge', mergeKey: 'name' } });
    expect(fields[3]).toMatchObject({ type: { map: 'int64' }, atomicMap: true });
    expect(fields[4]).toMatchObject({ type: 'int32', ptr: true });
    expect(s.structs.get('io.example.v1.Part')?.atomic).toBe(true);
  });

  it.each([
    ['an unknown type', WIDGET.replace('type: ObjectMeta', 'type: ObjectMetta'), /a\.yaml: Widget\.1: unknown or ambiguous type ObjectMetta/],
    ['an unknown field key', WIDGET.replace('atomicMap: true', 'atomicMapp: true'), /a\.yaml: Widget\.3: unknown key atomicMapp/],
    ['list semantics on a scalar', WIDGET.replace('type: "*int32"', 'type: "*int32", list: set'), /Widget\.4: list semantics on a field that is not a list/],
    ['a map list without keys', WIDGET.replace('keys: [name], ', ''), /Widget\.2: list is atomic, set, or map with keys/],
    ['a bad patch strategy', WIDGET.replace('patch: "merge"', 'patch: "mergee"'), /Widget\.2: bad patch strategy mergee/],
    ['a struct without description', WIDGET.replace('    description: "A part."\n', ''), /a\.yaml: Part has no description/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => loadSchema(schemaDir({ 'a.yaml': text, 'meta.yaml': META }))).toThrow(message);
  });
});
