// The Status every failed authentication gets, as Kubernetes' unauthorized handler writes it: the reason of the
// failure stays in the log, the client only learns "Unauthorized".
import { StatusError } from '@kemu/api';

export function unauthorized(): StatusError {
  return new StatusError('Unauthorized', 'Unauthorized');
}
