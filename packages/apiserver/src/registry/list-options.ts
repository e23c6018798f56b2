// The list-only checks of metav1 ListOptions that Kubernetes makes before reading (the query-parameter
// conversion, then ValidateListOptions): integers that do not parse are a 400 with strconv's text; a
// resourceVersionMatch without a resourceVersion, with continue, or of an unknown value, and sendInitialEvents on
// a list (not a watch) whatever its value, are one 422 ListOptions Invalid.
import { errors, type StatusCause } from '@kemu/api';
import { intParam } from '../routes/request.ts';
import { fieldErrors } from '../validation/field.ts';

export function checkListOptions(query: URLSearchParams): void {
  intParam(query, 'limit');
  intParam(query, 'timeoutSeconds');
  const causes: StatusCause[] = [];
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  if (match !== '') {
    const path = 'resourceVersionMatch';
    if (rv === '') causes.push(fieldErrors.forbidden(path, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if ((query.get('continue') ?? '') !== '') causes.push(fieldErrors.forbidden(path, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(fieldErrors.notSupported(path, match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0') causes.push(fieldErrors.forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (query.has('sendInitialEvents')) causes.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (causes.length > 0) throw errors.invalid('meta.k8s.io', 'ListOptions', '', causes);
}
