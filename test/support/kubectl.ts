// Test helper: the real kubectl, with a HOME of its own (so discovery is fetched anew, never from another
// test's cache) and a given kubeconfig; a run never rejects, its failure is the exit code and stderr.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment for kubectl: HOME is a fresh <dir>/home, KUBECONFIG the given file. */
export function kubectlEnv(dir: string, kubeconfig: string): NodeJS.ProcessEnv {
  const home = path.join(dir, 'home');
  mkdirSync(home);
  return { ...process.env, HOME: home, KUBECONFIG: kubeconfig };
}

export function runKubectl(env: NodeJS.ProcessEnv, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
