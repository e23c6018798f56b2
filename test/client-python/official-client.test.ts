// The official Kubernetes Python client (Debian's python3-kubernetes, for /usr/bin/python3) against an
// in-process apiserver: list, create, a JSON patch, a 409 AlreadyExists, and a watch stream (it sends
// watch=True, which Kubernetes reads as true). Skips, saying why, where the module is not installed.
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(import.meta.dirname, 'official-client.py');
const missing = (() => {
  const r = spawnSync(PYTHON, ['-c', 'import kubernetes'], { encoding: 'utf8' });
  if (r.error) return `${PYTHON} not found`;
  return r.status === 0 ? undefined : `${PYTHON} lacks the kubernetes module (apt-get install python3-kubernetes)`;
})();

let api: InProcessApiserver | undefined;
beforeAll(async () => {
  if (!missing) api = await startInProcessApiserver('kemu-python-');
});
afterAll(async () => api?.close());

interface Seen {
  namespaces: string[];
  created: { name: string; data: Record<string, string>; uid: boolean };
  patched: Record<string, string>;
  conflict: { status: number; reason: string; message: string; details: Record<string, string> } | null;
  events: Array<[string, string, Record<string, string>]>;
  after_delete: string[];
}

function runClient(kubeconfig: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [SCRIPT, kubeconfig, 'default'], { timeout: 60_000, env: { ...process.env, HOME: path.dirname(kubeconfig) } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`python client failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Seen);
    });
  });
}

describe('official Python client', () => {
  it('lists, creates, patches, gets a 409 and watches', async (ctx) => {
    if (missing || !api) return ctx.skip(missing ?? 'no apiserver');
    const seen = await runClient(api.kubeconfig);
    expect(seen.namespaces).toEqual(expect.arrayContaining(['default', 'kube-system']));
    expect(seen.created).toEqual({ name: 'py-a', data: { a: '1' }, uid: true });
    expect(seen.patched).toEqual({ a: '1', b: '2' });
    expect(seen.conflict).toEqual({ status: 409, reason: 'AlreadyExists', message: 'configmaps "py-a" already exists', details: { name: 'py-a', kind: 'configmaps' } });
    expect(seen.events).toEqual([
      ['ADDED', 'py-a', { a: '1' }],
      ['MODIFIED', 'py-a', { a: '1', b: '2' }],
    ]);
    expect(seen.after_delete).not.toContain('py-a');
  });
});
