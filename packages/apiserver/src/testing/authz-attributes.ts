// Test helper: authorizer attributes for a request (by default jane listing pods in "default"), with overrides.
import type { Attributes } from '../authz/types.ts';

export const JANE = { username: 'jane', groups: ['system:authenticated'] };

export function attributes(over: Partial<Attributes> = {}): Attributes {
  return {
    user: JANE,
    verb: 'list',
    resourceRequest: true,
    path: '/api/v1/namespaces/default/pods',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'default',
    name: '',
    ...over,
  };
}
