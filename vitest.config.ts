import { defineConfig } from 'vitest/config';

// CI asks for a JSON report (KEMU_VITEST_JSON) to print the "N passed, N failed" line.
const json = process.env.KEMU_VITEST_JSON;

// The Docker lab files (13 containers each) run in a second group, after every other file has finished: on
// 2 cores, a lab that starts beside the multi-process tests spends minutes with containers too starved to pass
// their health checks or renew a 4 s Lease — a machine too busy, not behaviour under test.
const DOCKER = ['test/**/docker-*.test.ts'];

const shared = {
  setupFiles: ['test/setup/kill-children.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Integration tests start real processes; keep parallelism modest on 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
    reporters: json ? ['default', 'json'] : ['default'],
    outputFile: json ? { json } : undefined,
    projects: [
      // Unit tests share each worker's module cache (isolate: false): loading the apiserver's module graph afresh
      // for each of ~300 files was most of their time. They start servers in-process and restore what they change.
      { test: { ...shared, name: 'unit', include: ['packages/*/src/**/*.test.ts'], exclude: ['**/node_modules/**'], isolate: false, sequence: { groupOrder: 0 } } },
      { test: { ...shared, name: 'kemu', include: ['test/**/*.test.ts'], exclude: [...DOCKER, '**/node_modules/**'], sequence: { groupOrder: 0 } } },
      { test: { ...shared, name: 'docker', include: DOCKER, sequence: { groupOrder: 1 } } },
    ],
  },
});
