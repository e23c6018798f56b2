// ValidateSignerName (pkg/apis/core/validation): a signerName is `<fully qualified domain>/<path>`, the domain
// made of DNS-1123 labels with at least one dot, the path of DNS-1123 subdomains separated by dots.
import type { StatusCause } from '@kemu/api';
import { fieldErrors } from './field.ts';
import { DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN_MAX, isDNS1123Label, isDNS1123Subdomain } from '@kemu/api';

export function validateSignerName(path: string, signerName: string): StatusCause[] {
  if (signerName === '') return [fieldErrors.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain = '', rest = ''] = segments;
  const out: StatusCause[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX) out.push(fieldErrors.tooLong(path, DNS1123_SUBDOMAIN_MAX));
  const labels = domain.split('.');
  // Only the first bad label is reported: the messages would not tell later ones apart.
  for (const lbl of labels) {
    const errs = isDNS1123Label(lbl);
    if (errs.length === 0) continue;
    for (const e of errs) out.push(fieldErrors.invalid(path, domain, `validating label ${JSON.stringify(lbl)}: ${e}`));
    break;
  }
  if (labels.length < 2) out.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of rest.split('.')) {
    const errs = isDNS1123Subdomain(lbl);
    if (errs.length === 0) continue;
    for (const e of errs) out.push(fieldErrors.invalid(path, rest, `validating label ${JSON.stringify(lbl)}: ${e}`));
    break;
  }
  const maxSignerName = DNS1123_SUBDOMAIN_MAX + (DNS1123_SUBDOMAIN_MAX + DNS1123_LABEL_MAX + 1) + 1;
  if (signerName.length > maxSignerName) out.push(fieldErrors.tooLong(path, maxSignerName));
  return out;
}
