// Reads the addons directory as `kubectl apply -f DIR --recursive` does: every *.json, *.yaml and *.yml file
// below it in lexical order, YAML files split into documents (JSON is YAML), empty documents skipped, `List`
// kinds flattened into their items. A file that does not parse is reported with its path and skipped; the
// caller then applies the other files but prunes nothing (kubectl apply prunes only after an error-free run).
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '@kemu/api';

export const MANIFEST_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

export interface Manifest {
  /** The file it came from (for log lines), and its position there. */
  file: string;
  index: number;
  object: KubeObject;
}

export interface ManifestError {
  file: string;
  message: string;
}

export interface LoadedManifests {
  manifests: Manifest[];
  errors: ManifestError[];
}

/** The files kubectl's --recursive visit picks, sorted as filepath.Walk visits them. */
export function manifestFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    const entries = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if ((e.isFile() || e.isSymbolicLink()) && MANIFEST_EXTENSIONS.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One document's objects (a List's items), or the reason it is not an object kubectl would send. */
export function objectsOf(doc: unknown): KubeObject[] | string {
  if (doc === null || doc === undefined) return [];
  if (!isRecord(doc)) return 'a manifest must be an object';
  const kind = doc.kind;
  const apiVersion = doc.apiVersion;
  const missing = [...(typeof apiVersion === 'string' && apiVersion ? [] : ['apiVersion not set']), ...(typeof kind === 'string' && kind ? [] : ['kind not set'])];
  if (missing.length) return `error validating data: [${missing.join(', ')}]`;
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(doc.items)) {
    const out: KubeObject[] = [];
    for (const item of doc.items) {
      const r = objectsOf(item);
      if (typeof r === 'string') return r;
      out.push(...r);
    }
    return out;
  }
  if (!isRecord(doc.metadata)) return 'error validating data: metadata not set';
  const meta = doc.metadata;
  if (typeof meta.name !== 'string' || meta.name === '') return 'resource name may not be empty';
  return [doc as KubeObject];
}

/** Parses one file's text (a YAML stream or a JSON document). */
export function parseManifestText(file: string, text: string): LoadedManifests {
  const manifests: Manifest[] = [];
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) {
    if (d.errors.length > 0) return { manifests: [], errors: [{ file, message: `error converting YAML to JSON: ${d.errors[0]?.message ?? 'invalid YAML'}` }] };
  }
  for (const d of list) {
    const r = objectsOf(d.toJS());
    if (typeof r === 'string') return { manifests: [], errors: [{ file, message: r }] };
    for (const object of r) manifests.push({ file, index: manifests.length, object });
  }
  return { manifests, errors: [] };
}

/** Every manifest under `dir`; a missing or unreadable directory is one error, as kubectl's "the path ... does not exist". */
export function loadManifests(dir: string): LoadedManifests {
  let files: string[];
  try {
    files = manifestFiles(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { manifests: [], errors: [{ file: dir, message: code === 'ENOENT' ? `the path "${dir}" does not exist` : (e as Error).message }] };
  }
  const out: LoadedManifests = { manifests: [], errors: [] };
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch (e) {
      out.errors.push({ file: f, message: (e as Error).message });
      continue;
    }
    const r = parseManifestText(f, text);
    out.manifests.push(...r.manifests);
    out.errors.push(...r.errors);
  }
  return out;
}
