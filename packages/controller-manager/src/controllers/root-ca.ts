// The CA bundle the root-ca-certificate-publisher and the serviceaccount-token controller hand out: --root-ca-file
// (which must hold PEM certificates, as Kubernetes' readCA checks), else the CA the manager's kubeconfig trusts.
import { readFileSync } from 'node:fs';
import { parseCertificates } from '@kemu/pki';
import { goFileError } from '@kemu/base';
import type { ControllerContext } from '../controller.ts';

/** The bundle (PEM text, possibly ""); throws Kubernetes' "error parsing root-ca-file at …" when the file is bad. */
export function rootCA(ctx: Pick<ControllerContext, 'options' | 'client'>): string {
  const file = ctx.options['root-ca-file'];
  if (file === '') return ctx.client.config?.caData?.toString('utf8') ?? '';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`error parsing root-ca-file at ${file}: ${goFileError('open', file, e)}`);
  }
  let ok = false;
  try {
    ok = parseCertificates(text, file).length > 0;
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`error parsing root-ca-file at ${file}: data does not contain any valid RSA or ECDSA certificates`);
  return text;
}
