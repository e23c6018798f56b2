// The labelSelector and fieldSelector query parameters as metrics-server's lists take them: label selectors with
// Kubernetes' full grammar and messages (@kemu/api's parser, the apiserver's), and field requirements on
// metadata.name / metadata.namespace (`=`, `==`, `!=`). A selector that does not parse is a 400 BadRequest.
import { errors, parseLabelSelector as parseLabels } from '@kemu/api';

export type Matcher = (labels: Record<string, string> | undefined) => boolean;

export function parseLabelSelector(s: string | null): Matcher {
  if (!s) return () => true;
  return parseLabels(s).matches;
}

/** Matches an object's metadata.name and metadata.namespace. */
export function parseFieldSelector(s: string | null): (meta: { name: string; namespace?: string }) => boolean {
  if (!s) return () => true;
  const reqs = s.split(',').map((x) => x.trim()).filter((x) => x !== '').map((part) => {
    const m = /^([^=!\s]+)\s*(==|!=|=)\s*(\S*)$/.exec(part);
    if (!m) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const field = m[1] ?? '';
    if (field !== 'metadata.name' && field !== 'metadata.namespace') throw errors.badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    return { field, equal: m[2] !== '!=', value: m[3] ?? '' };
  });
  return (meta) => reqs.every((r) => ((r.field === 'metadata.name' ? meta.name : (meta.namespace ?? '')) === r.value) === r.equal);
}
