import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real processes; keep parallelism modest on 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
