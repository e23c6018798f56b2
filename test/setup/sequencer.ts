// Longest files first, so that the two workers finish together instead of one running a long file alone at the
// end. Durations come from vitest's own cache of the last run when it has them, else from SLOW_FILES (a clean
// CI checkout has no cache); files with neither keep vitest's order (larger files first) after the known ones.
// The project groups keep their order (the Docker group still runs after everything else).
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FILES } from './slow-files.ts';

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const position = new Map(base.map((f, i) => [f, i]));
    const root = this.ctx.config.root;
    const cachedOf = (f: TestSpecification) => this.ctx.cache.getFileTestResults(`${f.project.name}:${path.relative(root, f.moduleId)}`);
    const millis = (f: TestSpecification): number | undefined => {
      const rel = path.relative(root, f.moduleId);
      const cached = cachedOf(f)?.duration;
      if (cached !== undefined) return cached;
      const known = SLOW_FILES[rel];
      return known === undefined ? undefined : known * 1000;
    };
    return [...base].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      // A file that failed last time first, as vitest does, for a quick answer while fixing it.
      const failed = Number(cachedOf(b)?.failed ?? false) - Number(cachedOf(a)?.failed ?? false);
      if (failed !== 0) return failed;
      const ma = millis(a);
      const mb = millis(b);
      if (ma !== undefined && mb !== undefined && ma !== mb) return mb - ma;
      if (ma !== undefined && mb === undefined) return -1;
      if (ma === undefined && mb !== undefined) return 1;
      return position.get(a)! - position.get(b)!;
    });
  }
}
