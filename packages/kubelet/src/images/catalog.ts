// The image catalogue: repositories kemu knows and the tags known to exist there, from the data file shipped
// with the kubelet (packages/kubelet/images/catalog.json) merged with the files given by --image-catalog. A
// listed repository lacking the tag (or digest) asked for answers "not found" as a registry does; a repository
// not listed is taken to have every tag, so images kemu does not know still pull.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseImageReference, type ImageReference } from './reference.ts';

/** One repository in a catalogue file. No tags: every tag exists (e.g. to mark a repository private only). */
export interface CatalogEntry {
  tags?: string[];
  /** Digests (sha256:…) known to exist; none listed: any well-formed digest does. */
  digests?: string[];
  /** Pulls need credentials for its registry (an imagePullSecrets Secret). */
  private?: boolean;
}

export interface CatalogFile {
  repositories: Record<string, CatalogEntry>;
}

/** What the catalogue says of a reference: unknown repository, or a known one that has it or lacks it. */
export type CatalogAnswer = { kind: 'unknown' } | { kind: 'found' | 'missing'; private: boolean };

interface Repository {
  tags: Set<string> | null;
  digests: Set<string> | null;
  private: boolean;
}

export const BUILTIN_CATALOG_PATH = new URL('../../images/catalog.json', import.meta.url);

export class ImageCatalog {
  private readonly repos = new Map<string, Repository>();

  /** Merges a catalogue over this one: tags and digests are added, `private` given in the later file wins. */
  add(file: CatalogFile, source = 'catalogue'): this {
    if (!file || typeof file !== 'object' || typeof file.repositories !== 'object' || file.repositories === null) {
      throw new Error(`${source}: expected an object with "repositories"`);
    }
    for (const [name, entry] of Object.entries(file.repositories)) {
      const ref = parseImageReference(name);
      if ('error' in ref || ref.tag !== undefined || ref.digest !== undefined) throw new Error(`${source}: "${name}" is not a repository name`);
      const e = (entry ?? {}) as CatalogEntry;
      const old = this.repos.get(ref.repository);
      this.repos.set(ref.repository, {
        tags: merge(old ? old.tags : undefined, e.tags, `${source}: ${name}: tags`),
        digests: merge(old ? old.digests : undefined, e.digests, `${source}: ${name}: digests`),
        private: e.private ?? old?.private ?? false,
      });
    }
    return this;
  }

  /** Reads a JSON or YAML catalogue file and merges it. */
  addFile(path: string | URL): this {
    const text = readFileSync(path, 'utf8');
    return this.add(parseYaml(text) as CatalogFile, String(path));
  }

  lookup(ref: ImageReference): CatalogAnswer {
    const repo = this.repos.get(ref.repository);
    if (!repo) return { kind: 'unknown' };
    // A digest names the manifest; the tag beside it is not looked at (as containerd resolves it).
    const has = ref.digest !== undefined ? repo.digests === null || repo.digests.has(ref.digest) : repo.tags === null || repo.tags.has(ref.tag ?? 'latest');
    return { kind: has ? 'found' : 'missing', private: repo.private };
  }

  get size(): number {
    return this.repos.size;
  }
}

function merge(old: Set<string> | null | undefined, add: string[] | undefined, what: string): Set<string> | null {
  if (add !== undefined && (!Array.isArray(add) || add.some((t) => typeof t !== 'string'))) throw new Error(`${what}: expected a list of strings`);
  // "Every tag" stays so unless the entry was new; a list given for a new repository is the list.
  if (old === undefined) return add === undefined ? null : new Set(add);
  if (old === null || add === undefined) return old;
  for (const t of add) old.add(t);
  return old;
}

/** The built-in catalogue merged with the given files (--image-catalog), in order. */
export function loadImageCatalog(files: readonly string[] = []): ImageCatalog {
  const catalog = new ImageCatalog().addFile(BUILTIN_CATALOG_PATH);
  for (const f of files) catalog.addFile(f);
  return catalog;
}
