// Safety net for every test file: whatever a test started through startProcess (and did not stop, e.g.
// because its beforeAll failed half-way) is killed by pid when the file ends.
import { afterAll } from 'vitest';
import { killAll } from '@kemu/base/testing/processes';

afterAll(async () => {
  await killAll();
});
