import { defineConfig } from 'vitest/config';

// CI asks for a JSON report (KEMU_VITEST_JSON) to print the "N passed, N failed" line.
const json = process.env.KEMU_VITEST_JSON;

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/setup/kill-children.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real processes; keep parallelism modest on 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
    reporters: json ? ['default', 'json'] : ['default'],
    outputFile: json ? { json } : undefined,
  },
});
