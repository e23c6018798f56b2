// Test helper for the process-lab chaos tests: the Deployment they scale, and a scale through the
// balancer that survives conflicts with the controllers' status writes.
import { waitFor } from '@kemu/base/testing/processes';
import type { Lab } from '../lab/lab.ts';
import { call, rec } from '../lab/api.ts';

export function deployment(name: string, replicas: number, extraSpec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extraSpec },
      },
    },
  };
}

export async function scale(lab: Lab, ns: string, name: string, replicas: number): Promise<void> {
  // read-modify-write of the scale subresource, retried on a conflict with the controllers' status writes
  await waitFor(`scale ${name} to ${replicas}`, async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/${name}/scale`;
    const cur = rec((await call(lab.server, 'GET', path)).body);
    return (await call(lab.server, 'PUT', path, { ...cur, spec: { replicas } })).status === 200;
  }, 20_000, 100);
}
