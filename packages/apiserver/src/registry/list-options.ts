// The list-only checks of metav1 ListOptions that Kubernetes makes before reading (ValidateListOptions and the
// query-parameter conversion): a timeoutSeconds that is no integer is a 400 from strconv, and sendInitialEvents
// on a list (not a watch) is a 422 whatever its value.
import { errors } from '@kemu/api';
import { intParam } from '../routes/request.ts';
import { fieldErrors } from '../validation/field.ts';

export function checkListOptions(query: URLSearchParams): void {
  intParam(query, 'timeoutSeconds');
  if (query.has('sendInitialEvents')) {
    throw errors.invalid('meta.k8s.io', 'ListOptions', '', [fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list')]);
  }
}
