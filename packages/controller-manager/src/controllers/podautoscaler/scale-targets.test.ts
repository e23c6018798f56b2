import { R } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { ScaleTargets } from './scale-targets.ts';

/** A discovery server holding stable.example.com with v1 (preferred) and v1beta1; only v1beta1's CronTab has /scale. */
function discovery(docs: Record<string, unknown>) {
  const asked: string[] = [];
  return {
    asked,
    raw: async (_method: string, path: string) => {
      asked.push(path);
      const doc = docs[path];
      return doc === undefined ? { status: 404, body: '{}' } : { status: 200, body: JSON.stringify(doc) };
    },
  };
}

const GROUP = {
  '/apis/stable.example.com': { kind: 'APIGroup', name: 'stable.example.com', versions: [{ version: 'v1beta1' }, { version: 'v1' }], preferredVersion: { version: 'v1' } },
  '/apis/stable.example.com/v1': { resources: [{ name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab' }] },
  '/apis/stable.example.com/v1beta1': {
    resources: [
      { name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab' },
      { name: 'crontabs/scale', namespaced: true, kind: 'Scale', group: 'autoscaling', version: 'v1' },
    ],
  },
};

describe('ScaleTargets', () => {
  it('answers built-in kinds from the table without asking discovery', async () => {
    const d = discovery({});
    expect(await new ScaleTargets(d).resolve({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' })).toBe(R.deployments);
    await expect(new ScaleTargets(d).resolve({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x' })).rejects.toThrow('no matches for kind "DaemonSet" in group "apps"');
    expect(d.asked).toEqual([]);
  });

  it("finds a custom resource's /scale in whichever version of its group serves it, and keeps the answer", async () => {
    const d = discovery(GROUP);
    const targets = new ScaleTargets(d);
    const ref = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', name: 'x' };
    const r = await targets.resolve(ref);
    expect([r.group, r.version, r.plural, r.namespaced]).toEqual(['stable.example.com', 'v1beta1', 'crontabs', true]);
    await targets.resolve(ref);
    expect(d.asked).toEqual(['/apis/stable.example.com', '/apis/stable.example.com/v1', '/apis/stable.example.com/v1beta1']);
    targets.forget(ref);
    await targets.resolve(ref);
    expect(d.asked).toHaveLength(6);
  });

  it("refuses a kind without /scale and a group discovery does not know, with the RESTMapper's text", async () => {
    const targets = new ScaleTargets(discovery(GROUP));
    await expect(targets.resolve({ apiVersion: 'stable.example.com/v1', kind: 'Other', name: 'x' })).rejects.toThrow('no matches for kind "Other" in group "stable.example.com"');
    await expect(targets.resolve({ apiVersion: 'nope.example.com/v1', kind: 'CronTab', name: 'x' })).rejects.toThrow('no matches for kind "CronTab" in group "nope.example.com"');
    await expect(targets.resolve({ apiVersion: 'a/b/c', kind: 'CronTab', name: 'x' })).rejects.toThrow('unexpected GroupVersion string: a/b/c');
  });
});
