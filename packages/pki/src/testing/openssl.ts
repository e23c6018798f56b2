// Test helper: the openssl and cfssl command-line tools, as independent judges of what @kemu/pki writes and as
// makers of the files it must read. Tests skip, saying why, where a tool is not installed.
import { execFileSync, spawnSync } from 'node:child_process';

export function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

export const noOpenssl = has('openssl') ? undefined : 'skipped: openssl is not installed';
export const noCfssl = has('cfssl') && has('cfssljson') ? undefined : 'skipped: cfssl/cfssljson are not installed (apt-get install golang-cfssl)';

/** Runs openssl; throws with its stderr when it fails. */
export function openssl(args: string[], input?: string, cwd?: string): string {
  return execFileSync('openssl', args, { input, cwd, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** `openssl x509 -noout -text` of a certificate file. */
export function x509Text(file: string): string {
  return openssl(['x509', '-in', file, '-noout', '-text']);
}

/** `openssl verify -CAfile ca file`'s output line, or the error it printed. */
export function opensslVerify(caFile: string, file: string): string {
  const r = spawnSync('openssl', ['verify', '-CAfile', caFile, file], { encoding: 'utf8' });
  return (r.stdout + r.stderr).trim();
}
